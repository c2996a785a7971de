package pg

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// The CDC relay needs wal_level = logical on every start, cold or warm, and a
// replication slot must never outlive its database nor the run that made it:
// a slot holds WAL for ever, and DROP DATABASE refuses a database with one.
func TestLogicalReplicationAndSlotsEndWithTheirDatabase(t *testing.T) {
	t.Parallel()
	dir := tempDataDir(t)
	ctx := context.Background()
	srv, err := Boot(ctx, Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	admin := func(srv *Server) *pgx.Conn {
		c, err := pgx.Connect(ctx, srv.DatabaseURL("postgres"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(ctx) })
		return c
	}
	walLevel := func(c *pgx.Conn) string {
		var lvl string
		if err := c.QueryRow(ctx, `SHOW wal_level`).Scan(&lvl); err != nil {
			t.Fatal(err)
		}
		return lvl
	}
	slots := func(c *pgx.Conn, db string) int {
		var n int
		if err := c.QueryRow(ctx, `SELECT count(*) FROM pg_replication_slots WHERE $1 = '' OR database = $1`, db).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	makeSlot := func(db, slot string, hold bool) {
		c, err := pgx.Connect(ctx, srv.DatabaseURL(db))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, `SELECT pg_create_logical_replication_slot($1, 'pgoutput')`, slot); err != nil {
			t.Fatalf("create slot on %s: %v", db, err)
		}
		if hold {
			t.Cleanup(func() { c.Close(ctx) })
			return
		}
		c.Close(ctx)
	}
	a := admin(srv)
	if lvl := walLevel(a); lvl != "logical" {
		t.Fatalf("cold boot: wal_level %q, want logical", lvl)
	}
	var pub int
	app, err := pgx.Connect(ctx, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	if err := app.QueryRow(ctx, `SELECT count(*) FROM pg_publication_tables WHERE pubname = 'outboxlab_outbox' AND tablename = 'outbox_messages'`).Scan(&pub); err != nil || pub != 1 {
		t.Errorf("the outbox's publication: %d (%v), want 1", pub, err)
	}
	app.Close(ctx)

	for _, end := range []struct {
		name string
		do   func(db string) error
	}{
		{"drop", func(db string) error { return srv.DropDatabase(ctx, db) }},
		{"create over", func(db string) error { return srv.CreateDatabase(ctx, db) }},
		{"reset", func(db string) error { return srv.ResetDatabase(ctx, db) }},
	} {
		db := "slots_" + string(rune('a'+len(end.name)))
		if err := srv.CreateDatabase(ctx, db); err != nil {
			t.Fatal(err)
		}
		// One slot idle, one held by a live session: both must go.
		makeSlot(db, db+"_idle", false)
		makeSlot(db, db+"_held", true)
		if err := end.do(db); err != nil {
			t.Fatalf("%s a database with two slots: %v", end.name, err)
		}
		if n := slots(a, db); n != 0 {
			t.Errorf("%s: %d slot(s) of %s left", end.name, n, db)
		}
	}

	// A run killed with a slot still there: the next boot drops it, and the
	// warm start has wal_level = logical too.
	if err := srv.CreateDatabase(ctx, "slots_orphan"); err != nil {
		t.Fatal(err)
	}
	makeSlot("slots_orphan", "orphan", false)
	a.Close(ctx)
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	warm := boot(t, Options{DataDir: dir})
	w := admin(warm)
	if lvl := walLevel(w); lvl != "logical" {
		t.Errorf("warm boot: wal_level %q, want logical", lvl)
	}
	if n := slots(w, ""); n != 0 {
		t.Errorf("warm boot: %d orphan slot(s) left, want 0", n)
	}
}
