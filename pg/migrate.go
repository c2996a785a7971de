package pg

import (
	"context"
	"embed"
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

const (
	sqlMigrationsTable = `CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL)`
	// Serialises concurrent boots against one database (e.g. tests in parallel
	// against --database-url): the second waits and then finds nothing to do.
	sqlMigrationsLock    = `SELECT pg_advisory_xact_lock(7263540001)`
	sqlMigrationsApplied = `SELECT version FROM schema_migrations`
	sqlMigrationsRecord  = `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`
)

// Migrate applies the embedded migrations not yet applied, each in its own
// transaction with its bookkeeping row; running it again changes nothing.
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
	rows, err := tx.Query(ctx, sqlMigrationsApplied)
	if err != nil {
		return fmt.Errorf("migrate: list applied: %w", err)
	}
	applied, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return fmt.Errorf("migrate: list applied: %w", err)
	}
	done := map[int]bool{}
	for _, v := range applied {
		done[int(v)] = true
	}
	for _, m := range ms {
		if done[m.version] {
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

// migrateAll brings the template and the application database up to date.
func (s *Server) migrateAll(ctx context.Context) error {
	for _, db := range []string{templateDB, appDatabase} {
		conn, err := pgx.Connect(ctx, s.DatabaseURL(db))
		if err != nil {
			return fmt.Errorf("connect to %s: %w", db, err)
		}
		err = Migrate(ctx, conn)
		conn.Close(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", db, err)
		}
	}
	return nil
}
