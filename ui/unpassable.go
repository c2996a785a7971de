package ui

import (
	"context"

	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/sim"
)

// growing are the oracle figures that never fall while a lesson's
// simulation runs forward: counts of what happened (the broker's log,
// counters) or of rows nothing a learner can do deletes (payments, ledger
// entries, notifications, charges). published is one too in a lesson: only
// retention's prune deletes a published row, and no key runs it (a lesson
// never plays its scene's script). A requeue (Q) clears a dead letter and
// its attempts, so dead_lettered and max_attempts are not here; nor are
// lost_events or pending, which a restart or a drain brings down. Only a
// rewind ([) or a new simulation (r) takes these back.
var growing = map[string]bool{
	"payments": true, "publishes": true, "published": true, "deliveries": true, "duplicates_delivered": true,
	"duplicates_ignored": true, "effects": true, "ledger_entries": true, "notifications": true,
	"crashes": true, "charges": true, "conflicts": true, "replays": true, "leases_recovered": true,
}

// beyondReach is the first check of st that can never hold again: an
// oracle figure that only grows, already past what the check allows (==,
// <= or < a value it has gone beyond). In duplicate, a payment sent and run
// before the crash was armed makes publishes 2 against publishes == 1. Nil
// when every check may still come to hold.
func beyondReach(ctx context.Context, s *sim.Sim, st *lessons.Step) *lessons.Check {
	var oracles []sim.Oracle
	for i := range st.Checks {
		c := &st.Checks[i]
		if c.Kind != "oracle" || !growing[c.Figure] {
			continue
		}
		if oracles == nil {
			var err error
			if oracles, err = s.Oracles(ctx); err != nil {
				return nil // said by the evaluation itself
			}
		}
		for _, o := range oracles {
			if o.Pipeline != c.Pipeline {
				continue
			}
			got, err := o.Figure(c.Figure)
			if err == nil && pastTarget(c.Op, got, c.Value) {
				return c
			}
		}
	}
	return nil
}

// pastTarget says a growing figure at got can no longer satisfy op value.
func pastTarget(op string, got, value int64) bool {
	switch op {
	case "==", "<=":
		return got > value
	case "<":
		return got >= value
	}
	return false
}
