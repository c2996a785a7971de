package pg

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/outboxlab/outboxlab/pg/slotname"
)

// The CDC relay needs wal_level = logical on every start, cold or warm, and a
// replication slot must never outlive its database nor the run that made it:
// a slot holds WAL for ever, and DROP DATABASE refuses a database with one.
// Only outboxlab's slots (slotname.Prefix): a slot someone else made on the
// server, and the session streaming from it, survive a reset and a boot.
func TestLogicalReplicationAndSlotsEndWithTheirDatabase(t *testing.T) {
	t.Parallel()
	dir := seededDataDir(t)
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
	ours := func(c *pgx.Conn, db string) int {
		var n int
		if err := c.QueryRow(ctx, `SELECT count(*) FROM pg_replication_slots WHERE ($1 = '' OR database = $1) AND starts_with(slot_name, $2)`, db, slotname.Prefix).Scan(&n); err != nil {
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

	// A session streaming from a slot someone else made (a Debezium on the
	// user's server): START_REPLICATION on a replication connection.
	stream := func(db, slot string) *pgconn.PgConn {
		cfg, err := pgconn.ParseConfig(srv.DatabaseURL(db))
		if err != nil {
			t.Fatal(err)
		}
		cfg.RuntimeParams["replication"] = "database"
		pc, err := pgconn.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = pc.Close(context.Background()) })
		if _, err := pglogrepl.CreateReplicationSlot(ctx, pc, slot, "pgoutput", pglogrepl.CreateReplicationSlotOptions{}); err != nil {
			t.Fatalf("create %s: %v", slot, err)
		}
		if err := pglogrepl.StartReplication(ctx, pc, slot, 0, pglogrepl.StartReplicationOptions{
			PluginArgs: []string{"proto_version '1'", "publication_names 'outboxlab_outbox'"}}); err != nil {
			t.Fatalf("start replication from %s: %v", slot, err)
		}
		return pc
	}
	senderOf := func(slot string) (pid int32) {
		t.Helper()
		if err := a.QueryRow(ctx, `SELECT COALESCE(active_pid, 0) FROM pg_replication_slots WHERE slot_name = $1`, slot).Scan(&pid); err != nil {
			t.Fatalf("slot %s: %v", slot, err)
		}
		return pid
	}

	for _, end := range []struct {
		name    string
		do      func(db string) error
		foreign bool // DROP DATABASE refuses a database with a slot: only a reset keeps it
	}{
		{"drop", func(db string) error { return srv.DropDatabase(ctx, db) }, false},
		{"create over", func(db string) error { return srv.CreateDatabase(ctx, db) }, false},
		{"reset", func(db string) error { return srv.ResetDatabase(ctx, db) }, true},
	} {
		db := "slots_" + string(rune('a'+len(end.name)))
		if err := srv.CreateDatabase(ctx, db); err != nil {
			t.Fatal(err)
		}
		// One slot of ours idle, one held by a live session: both must go.
		makeSlot(db, slotname.Prefix+db+"_idle", false)
		makeSlot(db, slotname.Prefix+db+"_held", true)
		var sender *pgconn.PgConn
		var pid int32
		if end.foreign {
			// The user's slots, one idle, one streamed: neither is ours.
			makeSlot(db, "users_slot", false)
			sender = stream(db, "users_stream")
			pid = senderOf("users_stream")
		}
		if err := end.do(db); err != nil {
			t.Fatalf("%s a database with slots: %v", end.name, err)
		}
		if n := ours(a, db); n != 0 {
			t.Errorf("%s: %d slot(s) of ours in %s left", end.name, n, db)
		}
		if !end.foreign {
			continue
		}
		if n := slots(a, db); n != 2 {
			t.Errorf("%s: %d slot(s) left in %s, want the user's 2 (users_slot, users_stream)", end.name, n, db)
		}
		if got := senderOf("users_stream"); got != pid || pid == 0 {
			t.Errorf("%s: users_stream streamed by pid %d, was %d: its session was ended", end.name, got, pid)
		}
		if err := pglogrepl.SendStandbyStatusUpdate(ctx, sender, pglogrepl.StandbyStatusUpdate{ReplyRequested: true}); err != nil {
			t.Errorf("%s: the user's stream: %v", end.name, err)
		} else {
			rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			_, err := sender.ReceiveMessage(rctx)
			cancel()
			if err != nil {
				t.Errorf("%s: the user's stream answers no more: %v", end.name, err)
			}
		}
		_ = sender.Close(ctx)
	}

	// A run killed with a slot still there: the next boot drops it, not
	// the user's, and the warm start has wal_level = logical too.
	if err := srv.CreateDatabase(ctx, "slots_orphan"); err != nil {
		t.Fatal(err)
	}
	makeSlot("slots_orphan", slotname.Prefix+"orphan", false)
	makeSlot("slots_orphan", "users_slot_2", false)
	a.Close(ctx)
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	warm := boot(t, Options{DataDir: dir})
	w := admin(warm)
	if lvl := walLevel(w); lvl != "logical" {
		t.Errorf("warm boot: wal_level %q, want logical", lvl)
	}
	if n := ours(w, ""); n != 0 {
		t.Errorf("warm boot: %d orphan slot(s) of ours left, want 0", n)
	}
	var names []string
	rows, _ := w.Query(ctx, `SELECT slot_name FROM pg_replication_slots ORDER BY 1`)
	names, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"users_slot", "users_slot_2", "users_stream"}; !slices.Equal(names, want) {
		t.Errorf("warm boot: slots %v, want the user's %v kept", names, want)
	}
}
