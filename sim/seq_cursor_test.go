package sim

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// The seq-cursor relay crashed after a publish: it held no
// lease and its cursor did not move, so restarted it reads the row again and
// publishes it again with the same id; the inbox absorbs the duplicate and
// nothing is lost. With one writer, commits follow seq order: the cursor
// loses nothing.
func TestSeqCursorCrashRepublishes(t *testing.T) {
	t.Parallel()
	sc := parseScene(t, "seqcrash", `title: t
teaches: t
relay: seq-cursor
request amount=1250 client=acme
crash relay-1 at relay.published
run
drain
expect outbox publishes == 2
expect outbox duplicates_ignored == 2
expect outbox duplicate_effects == 0
expect outbox lost_events == 0
expect outbox pending == 0
`)
	res := run(t, sc, RunOptions{})
	if !res.Held {
		t.Fatalf("expected outcome did not hold:\n%s", explainFailure(res))
	}
	var said bool
	for _, e := range res.Timeline {
		if strings.Contains(e.Explain, "it held no lease and its cursor did not move") {
			said = true
		}
	}
	if !said {
		t.Errorf("the timeline does not say why the crashed seq cursor republishes")
	}
}

// A scene naming api-2 without writers: 2 is told which header adds it.
func TestAPI2NeedsWritersHeader(t *testing.T) {
	t.Parallel()
	sc := parseScene(t, "nowriter", "title: t\nteaches: t\nrequest\nfinish api-2\nexpect outbox payments == 1\n")
	s := newSim(t, sc)
	err := s.Do(t.Context(), sc.Steps[1])
	if err == nil || !strings.Contains(err.Error(), "writers: 2") {
		t.Errorf("finish api-2 with writers: 1: %v, want a pointer to writers: 2", err)
	}
}

// The Tables pane shows what the seq cursor reads: each outbox row's seq and,
// in relay_offsets, where the cursor stands — past the row that commits late.
func TestTablesShowSeqAndTheCursor(t *testing.T) {
	t.Parallel()
	sc := parseScene(t, "seqtables", `title: t
teaches: t
relay: seq-cursor
writers: 2
request amount=1250 client=acme
request amount=990 client=globex
until api api.inserted
finish api-2
finish relay-1
finish api
expect outbox lost_events == 1
`)
	s := newSim(t, sc)
	doAll(t, s, sc.Steps)
	ctx := context.Background()
	offsets, err := s.Table(ctx, "outbox", "relay_offsets", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if offsets.Total != 1 || len(offsets.Rows) != 1 || offsets.Rows[0][0] != "relay-1" || offsets.Rows[0][1] != "2" {
		t.Fatalf("relay_offsets: %+v, want relay-1 at seq 2", offsets)
	}
	outbox, err := s.Table(ctx, "outbox", "outbox_messages", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	seq := slices.Index(outbox.Columns, "seq")
	pub := slices.Index(outbox.Columns, "published")
	if seq < 0 || pub < 0 || len(outbox.Rows) != 2 {
		t.Fatalf("outbox table: %+v", outbox)
	}
	for _, r := range outbox.Rows {
		if published := r[pub] != "-"; published != (r[seq] == "2") {
			t.Errorf("row seq %s published %s: only seq 2 should be", r[seq], r[pub])
		}
	}
}
