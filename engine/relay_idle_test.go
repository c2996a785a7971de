package engine

import (
	"context"
	"testing"
)

// A relay polling an empty outbox keeps nothing per poll: the statements an
// idle claim ran are not held for a checkpoint that never comes (they grew
// by one or two a poll, 1.9 MB over a long idle serve).
func TestAnIdleRelayKeepsNothingPerPoll(t *testing.T) {
	// Not parallel: its database is made before the parallel tests start,
	// so no WAL of it lands inside TestCDCSlotRetainsWALWhileTheRelayIsDown's
	// window, which reads the whole server's WAL position.
	b := setup(t)
	r := b.relay(t, "relay-idle", nil)
	ctx := context.Background()
	for i := range 50 {
		res, err := r.Step(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Idle {
			t.Fatalf("poll %d claimed %d on an empty outbox", i, res.Claimed)
		}
	}
	if n := len(r.ran); n != 0 {
		t.Errorf("after 50 idle polls the relay holds %d statements, want none", n)
	}
}
