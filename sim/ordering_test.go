package sim

import (
	"strings"
	"testing"
)

// parkedBehindADeadLetter is a scene whose payment's event is poison and
// dead-lettered while its capture is published: both consumers park it.
const parkedBehindADeadLetter = `title: t
teaches: t
versions: park
max-attempts: 2
request amount=666 poison
capture
drain
expect outbox parked == 2
`

// A parking consumer (versions: park, S20) whose missing version never
// comes: the payment's event is poison and dead-lettered, its capture
// published and parked by both consumers. The drain has nothing left to
// deliver and says the parked events wait — the consumers' table is their
// only copy — instead of ending as if all were done.
func TestDrainSaysParkedEventsWait(t *testing.T) {
	t.Parallel()
	sc := parseScene(t, "parkdead", parkedBehindADeadLetter+`expect outbox dead_lettered == 1
expect outbox out_of_order == 0
expect outbox suppressed_effects == 0
`)
	res := run(t, sc, RunOptions{})
	if !res.Held {
		t.Fatalf("expected outcome did not hold:\n%s", explainFailure(res))
	}
	var said bool
	for _, e := range res.Timeline {
		if e.Kind == "stuck" && strings.Contains(e.Explain, "2 events parked ahead of their version") && strings.Contains(e.Explain, "waits for version 1") {
			said = true
		}
	}
	if !said {
		t.Errorf("the drain does not say the parked events wait for version 1:\n%s", explainFailure(res))
	}
}

// The Tables pane's parked_messages: what psql would show of the parked
// capture, one row per consumer, at version 2.
func TestParkedMessagesTable(t *testing.T) {
	t.Parallel()
	sc := parseScene(t, "parktable", parkedBehindADeadLetter)
	s := newSim(t, sc)
	ctx := t.Context()
	for _, st := range sc.Steps {
		if err := s.Do(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	tb, err := s.Table(ctx, "outbox", "parked_messages", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Total != 2 || len(tb.Rows) != 2 {
		t.Fatalf("parked_messages: total %d, rows %v, want the capture parked by both consumers", tb.Total, tb.Rows)
	}
	consumers := map[string]bool{}
	for _, r := range tb.Rows {
		consumers[r[0]] = true
		if r[3] != "2" || r[4] != "PaymentCaptured" {
			t.Errorf("parked row %v, want version 2 of a PaymentCaptured", r)
		}
	}
	if !consumers["accounting"] || !consumers["notifications"] {
		t.Errorf("parked by %v, want accounting and notifications", consumers)
	}
}
