package sim

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/scenes"
)

// The CDC relay as an actor (relay: cdc): down while requests commit, its
// slot's WAL figure grows with each, read from pg_replication_slots; back up,
// it publishes them and the figure falls. Killed between receiving and
// confirming, restarted, it publishes the same id again and the inbox keeps
// one effect. Closed, the simulator leaves no slot behind.
func TestCDCRelayActor(t *testing.T) {
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
	admin, err := pgtest.Server(t).Pool(ctx, "postgres")
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
		if strings.Contains(e.Explain, "2 event(s) wait behind") && strings.Contains(e.Explain, "a stream has no dead letter") {
			said = true
		}
	}
	if !said {
		t.Errorf("the drain does not say the poison message holds the stream back:\n%s", explainFailure(res))
	}
}
