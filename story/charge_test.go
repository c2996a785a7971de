package story

import (
	"slices"
	"testing"

	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/sim/simtest"
)

// S19: a consumer's call to the card provider is an arrow to a provider
// drawn last, its answer one back; the outcome says how many times the card
// was charged: twice without a key, once with it (the repeat answered with
// the first charge), once through the second outbox's sender.
func TestChargeStory(t *testing.T) {
	t.Parallel()
	all, err := scenes.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenes.Find(all, "external-effects")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		variant, caller string
		calls, replays  int
		outcome         string
	}{
		{"", "accounting", 2, 1, "the card provider charged it once (2 calls)"},
		{"marker-after", "accounting", 2, 0, "the card provider charged it 2 times: a double charge"},
		{"second-outbox", scenes.Sender, 2, 1, "the card provider charged it once (2 calls)"},
	} {
		t.Run("variant "+tc.variant, func(t *testing.T) {
			res, err := simtest.Run(t, sc, sim.RunOptions{Variant: tc.variant})
			if err != nil {
				t.Fatal(err)
			}
			ms := Messages(res.Timeline, "outbox")
			if len(ms) != 1 {
				t.Fatalf("%d messages, want 1", len(ms))
			}
			s, err := Build(res.Timeline, "outbox", ms[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			if ps := s.Participants; ps[len(ps)-1] != Provider {
				t.Errorf("participants %v, want the provider last", ps)
			}
			if n := steps(s, Charge, tc.caller, Provider); n != tc.calls {
				t.Errorf("%d calls %s → provider, want %d", n, tc.caller, tc.calls)
			}
			replays := 0
			for _, e := range s.Events {
				if e.Step == Charge && e.From == Provider && e.Short.Key == chargeReplayed {
					replays++
				}
			}
			if replays != tc.replays {
				t.Errorf("%d replayed answers, want %d", replays, tc.replays)
			}
			if !slices.ContainsFunc(s.Outcome, func(o Text) bool { return o.String() == tc.outcome }) {
				t.Errorf("outcome %v lacks %q", s.Outcome, tc.outcome)
			}
		})
	}
}
