package deploy

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/engine"
)

// The last fault armed on an actor is the one that fires and the one its
// state names: a crash armed over a stall crashes, a stall armed over a
// crash stalls and does not crash (before, both stayed armed, the state
// said stall and the crash fired).
func TestTheLastFaultArmedFires(t *testing.T) {
	ev := engine.Event{Checkpoint: "relay.claimed"}
	for _, tc := range []struct {
		name      string
		arm       func(f *faults) error
		want      string
		wantCrash bool
	}{
		{"stall then crash", func(f *faults) error {
			if err := f.armStall("relay-1", 10*time.Millisecond); err != nil {
				return err
			}
			return f.armCrash("relay-1")
		}, FaultCrash, true},
		{"crash then stall", func(f *faults) error {
			if err := f.armCrash("relay-1"); err != nil {
				return err
			}
			return f.armStall("relay-1", 10*time.Millisecond)
		}, FaultStall, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFaults(nil, []string{"relay-1"}, engine.SystemClock{})
			if err := tc.arm(f); err != nil {
				t.Fatal(err)
			}
			if got := f.snapshot()[0].Armed; got != tc.want {
				t.Errorf("armed %v, want %v", got, tc.want)
			}
			err := f.hook("relay-1")(context.Background(), ev)
			if crashed := errors.Is(err, engine.ErrCrash); crashed != tc.wantCrash {
				t.Errorf("at the checkpoint: %v, want crash %v", err, tc.wantCrash)
			}
			if err := f.hook("relay-1")(context.Background(), ev); err != nil {
				t.Errorf("a second checkpoint: %v, want nothing armed left", err)
			}
		})
	}
}
