package pg

import (
	"context"
	_ "embed"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// CreateDatabase makes a new, empty, migrated database by cloning the
// template; an existing database of that name is dropped first. Tests use one
// database each so they can run in parallel; the simulator uses one per
// pipeline so naive and outbox never see each other's rows.
func (s *Server) CreateDatabase(ctx context.Context, name string) error {
	conn, err := pgx.Connect(ctx, s.DatabaseURL("postgres"))
	if err != nil {
		return fmt.Errorf("create database %s: connect: %w", name, err)
	}
	defer conn.Close(ctx)
	return s.createOn(ctx, conn, name)
}

// createOn is CreateDatabase on a connection to the "postgres" database.
func (s *Server) createOn(ctx context.Context, conn *pgx.Conn, name string) error {
	id := pgx.Identifier{name}.Sanitize()
	if err := DropSlots(ctx, conn, name); err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+id+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	_, err := conn.Exec(ctx, "CREATE DATABASE "+id+" TEMPLATE "+pgx.Identifier{templateDB}.Sanitize()+s.createStrategy())
	if s.external != "" && noSuchDatabase(err) {
		// A --database-url server outboxlab did not boot has no template
		// of ours to clone: the database is made empty and migrated, as
		// OpenDatabase makes one. (A workshop's learners, external to
		// themselves, do clone the room's template.)
		return s.createMigrated(ctx, conn, name)
	}
	if err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}

// createMigrated makes name empty on conn and migrates it.
func (s *Server) createMigrated(ctx context.Context, conn *pgx.Conn, name string) error {
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	if err := s.migrateOne(ctx, name); err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}

// noSuchDatabase reports whether err is PostgreSQL naming a database that
// does not exist (SQLSTATE 3D000), as CREATE DATABASE does of a missing
// template.
func noSuchDatabase(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "3D000"
}

// createStrategy is how CREATE DATABASE copies the template. WAL_LOG, the
// default, copies its 8 MB through shared buffers and the WAL and needs no
// checkpoint; FILE_COPY copies the files and takes two checkpoints. With
// fsync on, every user's server, a checkpoint waits for the disk: WAL_LOG
// is faster there. With fsync off (the test servers) a checkpoint waits for
// nothing, and FILE_COPY costs PostgreSQL a quarter of the CPU (12 ms
// against 51 ms a CREATE; the DROP DATABASE after it 6 ms against 29 ms,
// its checkpoint finding none of the copy's pages dirty in shared buffers).
// BenchmarkCreateDatabase, a create and a drop, on this project's 2-core
// machine: fsync on, on disk, 168–205 ms with WAL_LOG against 246–264 ms
// with FILE_COPY; fsync off 90 ms with FILE_COPY against 159 ms.
func (s *Server) createStrategy() string {
	if s.settings["fsync"] == "off" {
		return " STRATEGY FILE_COPY"
	}
	return ""
}

// OpenDatabase makes sure a database that must outlive the process (a
// deployment's: its outbox holds events owed to the broker) is there at
// this build's schema, and keeps what it holds: created when missing
// (created is then true), migrated forward when an older build made it,
// never dropped or emptied. One that another build's migrations made is an
// error wrapping ErrSchemaHistory, left untouched. It asks through the
// server's application database (on a --database-url server, the URL the
// user gave, which answers; its "postgres" database may not) and makes the
// database empty and migrates it (such a server has no template of ours).
func (s *Server) OpenDatabase(ctx context.Context, name string) (created bool, err error) {
	admin, err := pgx.Connect(ctx, s.URL())
	if err != nil {
		return false, fmt.Errorf("open database %s: connect: %w", name, err)
	}
	var exists int
	err = admin.QueryRow(ctx, sqlDatabaseExists, name).Scan(&exists)
	if err == nil && exists == 0 {
		_, err = admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // duplicate_database
			err = nil // made by another process at the same moment: open it
		} else if err == nil {
			created = true
		}
	}
	admin.Close(ctx)
	if err != nil {
		return false, fmt.Errorf("open database %s: %w", name, err)
	}
	conn, err := pgx.Connect(ctx, s.DatabaseURL(name))
	if err != nil {
		return created, fmt.Errorf("open database %s: connect: %w", name, err)
	}
	defer conn.Close(ctx)
	if err := Migrate(ctx, conn); err != nil {
		return created, fmt.Errorf("open database %s: %w", name, err)
	}
	return created, nil
}

// DropDatabase removes a database made by CreateDatabase, ending its sessions.
func (s *Server) DropDatabase(ctx context.Context, name string) error {
	conn, err := pgx.Connect(ctx, s.DatabaseURL("postgres"))
	if err != nil {
		return fmt.Errorf("drop database %s: connect: %w", name, err)
	}
	defer conn.Close(ctx)
	if err := DropSlots(ctx, conn, name); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	return nil
}

const sqlDatabaseExists = `SELECT count(*) FROM pg_database WHERE datname = $1`

// SQLEndSessions ends the sessions on a database that may hold a lock
// (sql/end_sessions.sql): $1 the database, $2 the application names and
// $3 the pids of sessions to keep. ResetDatabase and the simulator's own
// reset (which keeps its pool and its idle connections) both run it, so
// the two cannot disagree on which sessions a reset spares.
//
//go:embed sql/end_sessions.sql
var SQLEndSessions string

// ResetDatabase gives a database the state CreateDatabase would, faster:
// when it exists at the current schema version its sessions are ended and
// its tables emptied (tens of ms); otherwise it is created from the template.
func (s *Server) ResetDatabase(ctx context.Context, name string) error {
	admin, err := pgx.Connect(ctx, s.DatabaseURL("postgres"))
	if err != nil {
		return fmt.Errorf("reset database %s: connect: %w", name, err)
	}
	var exists int
	var fresh bool
	err = admin.QueryRow(ctx, sqlDatabaseState, name, spareMark()).Scan(&exists, &fresh)
	if err == nil && exists == 0 {
		// Made on the connection that asked: a backend less (each costs
		// PostgreSQL milliseconds of CPU, and a simulation's databases
		// are new the first time).
		defer admin.Close(ctx)
		return s.createOn(ctx, admin, name)
	}
	if err == nil && fresh {
		// A spare taken (spare.go): a clone no session has used. Without
		// its mark, the next reset empties it.
		defer admin.Close(ctx)
		if _, err := admin.Exec(ctx, "COMMENT ON DATABASE "+pgx.Identifier{name}.Sanitize()+" IS NULL"); err != nil {
			return fmt.Errorf("reset database %s: %w", name, err)
		}
		return nil
	}
	admin.Close(ctx)
	if err != nil {
		return fmt.Errorf("reset database %s: %w", name, err)
	}
	conn, err := pgx.Connect(ctx, s.DatabaseURL(name))
	if err != nil {
		return s.CreateDatabase(ctx, name)
	}
	defer conn.Close(ctx)
	if !UpToDate(ctx, conn) {
		// Older, newer or another build's schema: a clone of the template is.
		conn.Close(ctx)
		return s.CreateDatabase(ctx, name)
	}
	if _, err := conn.Exec(ctx, SQLEndSessions, name, []string{}, []int32{}); err != nil {
		return fmt.Errorf("reset database %s: end sessions: %w", name, err)
	}
	// A CDC relay's slot from the previous run would hold WAL from before
	// the reset and replay rows the TRUNCATE removed.
	if err := DropSlots(ctx, conn, name); err != nil {
		return fmt.Errorf("reset database %s: %w", name, err)
	}
	if _, err := conn.Exec(ctx, sqlReset); err != nil {
		return fmt.Errorf("reset database %s: %w", name, err)
	}
	return nil
}

// sqlReset empties every table a scene writes, in one statement so that
// foreign-key order never matters and a reset is one round trip.
const sqlReset = `TRUNCATE payments, idempotency_keys, outbox_messages, inbox_messages, consumer_positions, ledger_entries, notifications, relay_offsets, relay_lanes, parked_messages, effect_outbox, provider.charges, provider.idempotency_keys RESTART IDENTITY`

// Reset empties the scene tables of one database, for a new scene or a rerun.
func Reset(ctx context.Context, pool *pgxpool.Pool) error {
	if _, err := pool.Exec(ctx, sqlReset); err != nil {
		return fmt.Errorf("reset tables: %w", err)
	}
	return nil
}
