package sim

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// A reset ends the sessions that could hold a lock its TRUNCATE waits for,
// and only those: a learner's psql idle between two queries (or the user's
// own sessions on a --database-url server) keeps its connection, one left
// inside a transaction holding a payment's row lock is ended, and the reset
// does not wait for it.
func TestResetEndsOnlySessionsThatMayHoldALock(t *testing.T) {
	t.Parallel()
	sc := parseScene(t, "psqlbeside", `title: t
teaches: t
request amount=1250 client=acme
run
expect outbox published == 1
`)
	s := newSim(t, sc)
	ctx := context.Background()
	doAll(t, s, sc.Steps)
	url := s.srv.DatabaseURL(s.dbs["outbox"].name)
	open := func(name string) *pgx.Conn {
		t.Helper()
		cfg, err := pgx.ParseConfig(url)
		if err != nil {
			t.Fatal(err)
		}
		cfg.RuntimeParams["application_name"] = name
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		return c
	}
	idle, inTx := open("psql"), open("psql")
	var n int
	if err := idle.QueryRow(ctx, `SELECT count(*) FROM payments`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("payments seen from psql: %d (%v)", n, err)
	}
	if _, err := inTx.Exec(ctx, `BEGIN; SELECT * FROM payments FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	if err := s.Reset(ctx); err != nil {
		t.Fatalf("reset with a psql inside a transaction: %v", err)
	}
	if err := idle.QueryRow(ctx, `SELECT count(*) FROM payments`).Scan(&n); err != nil || n != 0 {
		t.Errorf("the idle psql after the reset: %d payments (%v), want its session kept and the table empty", n, err)
	}
	if err := inTx.Ping(ctx); err == nil {
		t.Error("the session inside a transaction survived the reset that truncated the rows it locked")
	}
}
