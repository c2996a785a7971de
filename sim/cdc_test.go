package sim

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/outboxlab/outboxlab/internal/testrun"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/pg/slotname"
	"github.com/outboxlab/outboxlab/scenes"
)

// The CDC relay as an actor (relay: cdc): down while requests commit, its
// slot's WAL figure grows with each, read from pg_replication_slots; back up,
// it publishes them and the figure falls. Killed between receiving and
// confirming, restarted, it publishes the same id again and the inbox keeps
// one effect. Closed, the simulator leaves no slot behind.
func TestCDCRelayActor(t *testing.T) {
	t.Parallel()
	sc := parseScene(t, "cdcactor", `title: t
teaches: t
relay: cdc
request amount=1250 client=acme
run
crash relay-1
request amount=990 client=globex
finish api
request amount=4200 client=initech
finish api
restart relay-1
crash relay-1 at relay.published
run
restart relay-1
drain
expect outbox lost_events == 0
`)
	s := newSim(t, sc)
	ctx := context.Background()
	retained := func() int64 {
		t.Helper()
		os, err := s.Oracles(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if os[0].Slots != 1 {
			t.Fatalf("%d slots in the outbox's database, want 1", os[0].Slots)
		}
		return os[0].SlotRetainedBytes
	}
	var figures []int64
	for i, st := range sc.Steps {
		if err := s.Do(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
		if i == 2 || i == 4 || i == 6 { // crashed, then each request committed
			figures = append(figures, retained())
		}
	}
	if figures[1] <= figures[0] || figures[2] <= figures[1] {
		t.Errorf("slot WAL bytes with the relay down: %v, want growing with each commit", figures)
	}
	after := retained()
	if after >= figures[2] {
		t.Errorf("slot WAL bytes after the relay confirmed: %d, want below %d", after, figures[2])
	}
	os, err := s.Oracles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	o := os[0]
	if o.Publishes != 4 || o.Published != 3 || o.DuplicatesIgnored != 2 || o.DuplicateEffects != 0 || o.LostEvents != 0 || o.Effects != 6 {
		t.Errorf("after the drain: %+v, want 4 publishes of 3 rows, 2 duplicates ignored, 6 effects", o)
	}
	db := s.dbs["outbox"].name
	s.Close()
	var slots int
	admin, err := s.srv.Pool(ctx, "postgres")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_replication_slots WHERE database = $1`, db).Scan(&slots); err != nil || slots != 0 {
		t.Errorf("after Close: %d slot(s) of %s left (%v), want 0", slots, db, err)
	}
}

// A relay: cdc scene on a server without wal_level = logical (an external
// --database-url one, say) is refused at once with what to change, not left
// waiting on a slot the server cannot stream.
func TestCDCNeedsLogicalWAL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, err := pg.Boot(ctx, pg.Options{DataDir: pgtest.DataDir(t), Settings: map[string]string{"wal_level": "replica", "fsync": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	set := scenes.DefaultSettings()
	set.CDC = true
	start := time.Now()
	s, err := New(ctx, Config{Server: srv, Settings: set, DBPrefix: prefix()})
	if err == nil {
		s.Close()
		t.Fatal("a CDC relay on wal_level = replica: no error")
	}
	if !errors.Is(err, engine.ErrWALLevel) || !strings.Contains(err.Error(), "wal_level = replica") || !strings.Contains(err.Error(), "ALTER SYSTEM SET wal_level = logical") {
		t.Errorf("error %q, want ErrWALLevel naming the level and the fix", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("refused after %v, want at once", d)
	}
}

// A poison message stops a CDC relay's stream: the drain says which message
// holds how many back, and why nothing skips it.
func TestCDCDrainNamesThePoisonThatHoldsTheStream(t *testing.T) {
	t.Parallel()
	sc := parseScene(t, "cdcpoison", `title: t
teaches: t
relay: cdc
request amount=1250 client=acme
request poison
request amount=990 client=globex
drain
expect outbox pending == 2
expect outbox published == 1
`)
	res := run(t, sc, RunOptions{})
	if !res.Held {
		t.Fatalf("expected outcome did not hold:\n%s", explainFailure(res))
	}
	var said bool
	for _, e := range res.Timeline {
		if strings.Contains(e.Explain, "2 events wait behind") && strings.Contains(e.Explain, "a stream has no dead letter") {
			said = true
		}
	}
	if !said {
		t.Errorf("the drain does not say the poison message holds the stream back:\n%s", explainFailure(res))
	}
}

// A pipeline's database may be the user's own (--database-url), with slots
// of theirs (a Debezium, a standby) and a session streaming from one: a
// reset and a Close drop outboxlab's slot and end its stream, never theirs.
// And a reset to settings with no CDC relay leaves no slot of ours: an
// unused slot holds WAL for ever.
func TestResetKeepsSlotsNotOurs(t *testing.T) {
	t.Parallel()
	sc := parseScene(t, "cdcforeign", `title: t
teaches: t
relay: cdc
request amount=1250 client=acme
run
expect outbox published == 1
`)
	s := newSim(t, sc)
	ctx := context.Background()
	doAll(t, s, sc.Steps)
	db := s.dbs["outbox"].name
	srv := s.srv
	admin, err := srv.Pool(ctx, "postgres")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(admin.Close) // after the cleanup below, which drops the slots through it
	idle, streamed := "users_slot_"+db, "users_stream_"+db
	t.Cleanup(func() {
		_, _ = admin.Exec(context.Background(), `SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = $1 AND active_pid IS NOT NULL`, streamed)
		testrun.Eventually(t, 10*time.Second, "the test's slots dropped", func() bool {
			_, _ = admin.Exec(context.Background(), `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = ANY($1) AND NOT active`, []string{idle, streamed})
			var n int
			return admin.QueryRow(context.Background(), `SELECT count(*) FROM pg_replication_slots WHERE slot_name = ANY($1)`, []string{idle, streamed}).Scan(&n) == nil && n == 0
		})
	})
	user, err := srv.Pool(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := user.Exec(ctx, `SELECT pg_create_logical_replication_slot($1, 'pgoutput')`, idle); err != nil {
		t.Fatal(err)
	}
	user.Close()
	cfg, err := pgconn.ParseConfig(srv.DatabaseURL(db))
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["replication"] = "database"
	sender, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer sender.Close(context.Background())
	if _, err := pglogrepl.CreateReplicationSlot(ctx, sender, streamed, "pgoutput", pglogrepl.CreateReplicationSlotOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := pglogrepl.StartReplication(ctx, sender, streamed, 0, pglogrepl.StartReplicationOptions{
		PluginArgs: []string{"proto_version '1'", "publication_names 'outboxlab_outbox'"}}); err != nil {
		t.Fatal(err)
	}
	type slot struct {
		Name string
		PID  int32
	}
	slotsOf := func() (ours int, theirs []slot) {
		t.Helper()
		rows, err := admin.Query(ctx, `SELECT slot_name, COALESCE(active_pid, 0) FROM pg_replication_slots WHERE database = $1 ORDER BY 1`, db)
		if err != nil {
			t.Fatal(err)
		}
		all, err := pgx.CollectRows(rows, pgx.RowToStructByPos[slot])
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range all {
			if strings.HasPrefix(s.Name, slotname.Prefix) {
				ours++
			} else {
				theirs = append(theirs, s)
			}
		}
		return ours, theirs
	}
	ours, before := slotsOf()
	if ours != 1 || len(before) != 2 || before[1].PID == 0 {
		t.Fatalf("before the reset: %d slot(s) of ours, theirs %v: want 1, and %s streamed", ours, before, streamed)
	}
	polling := scenes.DefaultSettings()
	if polling.CDC {
		t.Fatal("the default settings have a CDC relay")
	}
	if err := s.Renew(ctx, polling, 0); err != nil {
		t.Fatal(err)
	}
	ours, after := slotsOf()
	if ours != 0 {
		t.Errorf("after a reset to a polling relay: %d slot(s) of ours left, want 0", ours)
	}
	if !slices.Equal(after, before) {
		t.Errorf("after a reset: their slots %v, want %v (same walsender)", after, before)
	}
	if err := pglogrepl.SendStandbyStatusUpdate(ctx, sender, pglogrepl.StandbyStatusUpdate{ReplyRequested: true}); err != nil {
		t.Errorf("their stream after the reset: %v", err)
	} else {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := sender.ReceiveMessage(rctx)
		cancel()
		if err != nil {
			t.Errorf("their stream answers no more after the reset: %v", err)
		}
	}
	s.Close()
	if _, after := slotsOf(); !slices.Equal(after, before) {
		t.Errorf("after Close: their slots %v, want %v", after, before)
	}
}

// A CDC relay that crashes with nothing in flight is a dead process: its
// replication connection closes with it, so the server ends the walsender
// and the slot is free (a slot streams to one session at a time: "replication
// slot ... is active for PID" refuses a second START_REPLICATION). The
// restarted relay takes the slot and publishes the next row.
func TestCDCRelayIdleCrashEndsItsStream(t *testing.T) {
	t.Parallel()
	sc := parseScene(t, "cdcidlecrash", `title: t
teaches: t
relay: cdc
request amount=1250 client=acme
run
crash relay-1
request amount=990 client=globex
finish api
restart relay-1
run
expect outbox published == 2
expect outbox pending == 0
`)
	s := newSim(t, sc)
	ctx := context.Background()
	db := s.dbs["outbox"].name
	admin, err := s.srv.Pool(ctx, "postgres")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	sender := func() (pid int32) {
		t.Helper()
		if err := admin.QueryRow(ctx, `SELECT COALESCE(max(active_pid), 0) FROM pg_replication_slots WHERE database = $1 AND starts_with(slot_name, $2)`, db, slotname.Prefix).Scan(&pid); err != nil {
			t.Fatal(err)
		}
		return pid
	}
	for i, st := range sc.Steps {
		if err := s.Do(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
		switch i {
		case 1:
			if sender() == 0 {
				t.Fatal("after the run: the relay's slot has no walsender")
			}
		case 2: // crashed while idle
			// The server notices a closed socket at once; allow it a moment.
			testrun.Awaited(t, 2*time.Second, "the slot no longer streamed after an idle crash (else the dead relay's stream lives on)", sender,
				func(pid int32) bool { return pid == 0 })
		}
	}
	o := oracleOf(t, s, "outbox")
	if o.Published != 2 || o.LostEvents != 0 {
		t.Errorf("after the restart: %+v, want 2 published", o)
	}
}
