package pg

import (
	"context"
	"errors"
	"testing"
)

// OpenDatabase creates a deployment's database when it is missing and
// keeps it, rows and all, when it is there (CreateDatabase, which the
// deployment used, drops it first). One another build's migrations made
// is refused untouched.
func TestOpenDatabaseKeepsWhatItHolds(t *testing.T) {
	t.Parallel()
	srv := boot(t, Options{DataDir: seededDataDir(t)})
	ctx := context.Background()
	created, err := srv.OpenDatabase(ctx, "deploy_a")
	if err != nil || !created {
		t.Fatalf("first open: created %v, %v; want created", created, err)
	}
	pool, err := srv.Pool(ctx, "deploy_a")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `INSERT INTO payments (id, client_id, amount_cents, currency, created_at) VALUES (gen_random_uuid(), 'c', 1, 'EUR', '2026-01-01T00:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	created, err = srv.OpenDatabase(ctx, "deploy_a")
	if err != nil || created {
		t.Fatalf("second open: created %v, %v; want the database opened as it is", created, err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM payments`).Scan(&n); err != nil || n != 1 {
		t.Errorf("payments after the second open = %d (%v), want the 1 kept", n, err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO schema_migrations VALUES (9999, '9999_elsewhere.sql')`); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.OpenDatabase(ctx, "deploy_a"); !errors.Is(err, ErrSchemaHistory) {
		t.Errorf("another build's database: %v, want ErrSchemaHistory", err)
	}
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM payments`).Scan(&n); err != nil || n != 1 {
		t.Errorf("payments after the refusal = %d (%v), want the 1 kept", n, err)
	}
}
