package pg

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

//go:embed schema/*.sql
var schemaFS embed.FS

// migration is one numbered file of schema/.
type migration struct {
	version int
	name    string
	sql     string
}

func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(schemaFS, "schema")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration file %s: name must start with a number and '_'", e.Name())
		}
		body, err := schemaFS.ReadFile("schema/" + e.Name())
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: e.Name(), sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	return ms, nil
}

// SchemaVersion is the number of the newest embedded migration.
func SchemaVersion() int {
	ms, _ := migrations()
	if len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// SchemaDigest is a digest of every embedded migration, names and text: it
// changes when a migration is added or edited (pgtest keys the cluster it
// copies for test servers on it).
func SchemaDigest() string {
	ms, _ := migrations()
	h := sha256.New()
	for _, m := range ms {
		fmt.Fprintf(h, "%d %s %d\n%s", m.version, m.name, len(m.sql), m.sql)
	}
	return hex.EncodeToString(h.Sum(nil))
}

const (
	sqlMigrationsTable = `CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL)`
	// Serialises concurrent boots against one database (e.g. tests in parallel
	// against --database-url): the second waits and then finds nothing to do.
	sqlMigrationsLock    = `SELECT pg_advisory_xact_lock(7263540001)`
	sqlMigrationsApplied = `SELECT version, name FROM schema_migrations ORDER BY version`
	sqlMigrationsRecord  = `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`
)

// ErrSchemaHistory says a database was migrated by another outboxlab build
// whose numbered migrations are not this build's (a file renumbered or
// renamed): applying this build's on top would fail half-way or, worse,
// skip one, so Migrate refuses to touch it.
var ErrSchemaHistory = errors.New("migrated by another outboxlab build")

// applied is one row of schema_migrations.
type applied struct {
	version int
	name    string
}

// checkHistory compares what a database says it applied with the embedded
// migrations: every applied version must be an embedded one under the same
// file name. It names the first difference.
func checkHistory(done []applied, ms []migration) error {
	names := map[int]string{}
	for _, m := range ms {
		names[m.version] = m.name
	}
	for _, a := range done {
		want, ok := names[a.version]
		switch {
		case !ok:
			return fmt.Errorf("%w: it applied %s, which this build does not have", ErrSchemaHistory, a.name)
		case want != a.name:
			return fmt.Errorf("%w: its migration %d is %s, this build's is %s", ErrSchemaHistory, a.version, a.name, want)
		}
	}
	return nil
}

// listApplied reads schema_migrations through q (a conn or a tx).
func listApplied(ctx context.Context, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}) ([]applied, error) {
	rows, err := q.Query(ctx, sqlMigrationsApplied)
	if err != nil {
		return nil, err
	}
	var done []applied
	var a applied
	_, err = pgx.ForEachRow(rows, []any{&a.version, &a.name}, func() error {
		done = append(done, a)
		return nil
	})
	return done, err
}

// Migrate applies the embedded migrations not yet applied, each with its
// bookkeeping row, all in one transaction; running it again changes
// nothing. A database whose history is not this build's is left untouched
// with an error wrapping ErrSchemaHistory.
func Migrate(ctx context.Context, conn *pgx.Conn) error {
	ms, err := migrations()
	if err != nil {
		return fmt.Errorf("read migrations: %w", err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("migrate: begin: %w", err)
	}
	defer tx.Rollback(ctx)
	for _, q := range []string{sqlMigrationsLock, sqlMigrationsTable} {
		if _, err := tx.Exec(ctx, q); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	done, err := listApplied(ctx, tx)
	if err != nil {
		return fmt.Errorf("migrate: list applied: %w", err)
	}
	if err := checkHistory(done, ms); err != nil {
		return err
	}
	have := map[int]bool{}
	for _, a := range done {
		have[a.version] = true
	}
	for _, m := range ms {
		if have[m.version] {
			continue
		}
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return fmt.Errorf("migrate %s: %w", m.name, err)
		}
		if _, err := tx.Exec(ctx, sqlMigrationsRecord, m.version, m.name); err != nil {
			return fmt.Errorf("migrate %s: record: %w", m.name, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("migrate: commit: %w", err)
	}
	return nil
}

// UpToDate says whether conn's database holds exactly this build's
// migrations, no more, no fewer, under the same names.
func UpToDate(ctx context.Context, conn *pgx.Conn) bool {
	ms, err := migrations()
	if err != nil {
		return false
	}
	done, err := listApplied(ctx, conn)
	return err == nil && len(done) == len(ms) && checkHistory(done, ms) == nil
}

// migrateAll brings the template and the application database up to date.
// Both are this cluster's own and hold nothing but simulations: one that
// another outboxlab build migrated (a data directory kept across versions
// whose migrations were renumbered) is made again, empty, rather than
// refused.
func (s *Server) migrateAll(ctx context.Context) error {
	for _, db := range []string{templateDB, appDatabase} {
		err := s.migrateOne(ctx, db)
		if errors.Is(err, ErrSchemaHistory) {
			if err = s.recreate(ctx, db); err == nil {
				err = s.migrateOne(ctx, db)
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", db, err)
		}
	}
	return nil
}

func (s *Server) migrateOne(ctx context.Context, db string) error {
	conn, err := pgx.Connect(ctx, s.DatabaseURL(db))
	if err != nil {
		return fmt.Errorf("connect to %s: %w", db, err)
	}
	defer conn.Close(ctx)
	return Migrate(ctx, conn)
}

// recreate drops one of the cluster's own databases and makes it again,
// empty (not from the template, which may be the one being made).
func (s *Server) recreate(ctx context.Context, db string) error {
	conn, err := pgx.Connect(ctx, s.DatabaseURL("postgres"))
	if err != nil {
		return fmt.Errorf("recreate %s: connect: %w", db, err)
	}
	defer conn.Close(ctx)
	if err := DropSlots(ctx, conn, db); err != nil {
		return fmt.Errorf("recreate %s: %w", db, err)
	}
	id := pgx.Identifier{db}.Sanitize()
	for _, q := range []string{"DROP DATABASE IF EXISTS " + id + " WITH (FORCE)", "CREATE DATABASE " + id} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("recreate %s: %w", db, err)
		}
	}
	return nil
}
