package pg

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
)

// A spare is made before it is wanted, taken by a rename, and found fresh
// by the first reset of its new name, which empties nothing; the reset
// after it empties the tables as any reset does. A spare of another
// schema is dropped, and a name already taken leaves the spare a spare.
func TestSpareDatabases(t *testing.T) {
	t.Parallel()
	srv := boot(t, Options{DataDir: seededDataDir(t)})
	ctx := context.Background()
	if err := srv.ShareTemplate(ctx); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, srv.DatabaseURL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, name := range []string{"spare_a", "spare_b"} {
		if err := srv.MakeSpare(ctx, conn, name); err != nil {
			t.Fatal(err)
		}
	}
	// A spare an older build made: its mark names another schema.
	for _, q := range []string{`CREATE DATABASE spare_old`, `COMMENT ON DATABASE spare_old IS 'outboxlab: a fresh clone of schema 0'`} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	spares, err := srv.Spares(ctx, conn, "spare_")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(spares, []string{"spare_a", "spare_b"}) {
		t.Errorf("spares = %v, want spare_a and spare_b", spares)
	}
	if n := countDatabases(t, conn, "spare_old"); n != 0 {
		t.Errorf("the other schema's spare is still there")
	}

	if _, err := conn.Exec(ctx, `CREATE ROLE learner LOGIN PASSWORD 'pw' IN ROLE `+pgx.Identifier{TemplateUsers}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	if err := srv.TakeSpare(ctx, conn, "spare_a", "learner_outbox", "learner"); err != nil {
		t.Fatal(err)
	}
	var owner string
	if err := conn.QueryRow(ctx, `SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'learner_outbox'`).Scan(&owner); err != nil || owner != "learner" {
		t.Errorf("learner_outbox's owner = %q (%v), want learner", owner, err)
	}
	if err := srv.TakeSpare(ctx, conn, "spare_b", "learner_outbox", "learner"); !errors.Is(err, ErrNameTaken) {
		t.Errorf("a spare taken as a name in use: %v, want ErrNameTaken", err)
	}
	if n := countDatabases(t, conn, "spare_b"); n != 1 {
		t.Errorf("spare_b is gone after a refused take")
	}

	as := srv.As("learner", "pw")
	learnerDB := srv.DatabaseURL("learner_outbox")
	if err := as.ResetDatabase(ctx, "learner_outbox"); err != nil {
		t.Fatal(err)
	}
	var mark *string
	if err := conn.QueryRow(ctx, `SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = 'learner_outbox'`).Scan(&mark); err != nil || mark != nil {
		t.Errorf("learner_outbox's mark after its first reset = %v (%v), want none", mark, err)
	}
	db, err := pgx.Connect(ctx, learnerDB)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	if _, err := db.Exec(ctx, `INSERT INTO payments (id, client_id, amount_cents, currency, created_at) VALUES (gen_random_uuid(), 'c', 1, 'EUR', '2026-01-01T00:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	db.Close(ctx)
	if err := as.ResetDatabase(ctx, "learner_outbox"); err != nil {
		t.Fatal(err)
	}
	if db, err = pgx.Connect(ctx, learnerDB); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM payments`).Scan(&n); err != nil || n != 0 {
		t.Errorf("payments after the second reset = %d (%v), want 0: a used database is emptied", n, err)
	}
}

func countDatabases(t *testing.T, conn *pgx.Conn, name string) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_database WHERE datname = $1`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
