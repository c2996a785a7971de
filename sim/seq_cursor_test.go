package sim

import (
	"strings"
	"testing"
)

// The seq-cursor relay (issue 16 item 2) crashed after a publish: it held no
// lease and its cursor did not move, so restarted it reads the row again and
// publishes it again with the same id; the inbox absorbs the duplicate and
// nothing is lost. With one writer, commits follow seq order: the cursor
// loses nothing.
func TestSeqCursorCrashRepublishes(t *testing.T) {
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
	sc := parseScene(t, "nowriter", "title: t\nteaches: t\nrequest\nfinish api-2\nexpect outbox payments == 1\n")
	s := newSim(t, sc)
	err := s.Do(t.Context(), sc.Steps[1])
	if err == nil || !strings.Contains(err.Error(), "writers: 2") {
		t.Errorf("finish api-2 with writers: 1: %v, want a pointer to writers: 2", err)
	}
}
