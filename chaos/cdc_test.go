package chaos

import (
	"context"
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/scenes"
)

// --variant cdc: under the same random faults the CDC relay loses, invents
// and doubles nothing. What it breaks is pending, and only where a poison
// message stopped the stream: a stream has no dead letter, so every event
// committed after the poison waits behind it.
func TestCDCUnderChaos(t *testing.T) {
	t.Parallel()
	o := Options{Mode: scenes.Outbox, Variant: "cdc"}
	outs, err := Run(context.Background(), pgtest.Server(t), 1, 0, 60, 2, o, "chaoscdc", nil)
	if err != nil {
		t.Fatal(err)
	}
	blocked := 0
	for _, out := range outs {
		if out.Err != nil {
			t.Errorf("run %d: %v", out.Index, out.Err)
			continue
		}
		poison := strings.Contains(out.Scene.Text(), " poison")
		for _, b := range out.Broken {
			if b.Figure != "pending" || !poison {
				t.Errorf("run %d broke %s:\n%s", out.Index, b, out.Scene.Text())
			}
		}
		if out.Violated() {
			blocked++
		}
	}
	if blocked == 0 {
		t.Errorf("60 runs and no poison message held the stream back: the schedules have no poison")
	}
	t.Logf("60 runs: a poison message held the CDC stream back in %d", blocked)
}
