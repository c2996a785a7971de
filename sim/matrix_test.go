package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/scenes"
)

// matrixScene is one cell of the crash matrix, in the scene language: a
// relay stalled past its lease while the other takes its row over (so a late
// mark meets another's lease), then the cell's crash armed, then keyed and
// unkeyed payments, a capture (a second version of one aggregate), a poison
// message, a forced duplicate delivery, a broker outage with retries, and
// drains. setup arms what a checkpoint needs to be reached at all.
const matrixScene = `title: crash %[1]s at %[2]s
teaches: the outbox chain under a crash
relays: 2
max-attempts: 3
%[5]s
request key=k-0
finish api
until %[3]s relay.claimed
stall %[3]s at relay.published
step %[3]s
advance 31s
finish accounting
finish notifications
%[4]s
crash %[1]s at %[2]s
request
capture
request key=k-1
request poison
duplicate
run
broker down
request
run
advance 10s
broker up
drain
resume %[3]s
drain
expect outbox lost_events == 0
expect outbox phantom_effects == 0
expect outbox duplicate_effects == 0
expect outbox double_leases == 0
expect outbox pending == 0
expect outbox dead_lettered == 1
expect outbox lost_charges == 0
expect outbox double_charges == 0
`

// The crash matrix: every outbox actor crashed at each of its checkpoints,
// with two relays, a duplicate and an outage. The outbox chain loses,
// invents and doubles nothing, never leases a row twice, and every run ends
// with a verdict.
func TestCrashMatrix(t *testing.T) {
	t.Parallel()
	set := scenes.DefaultSettings()
	set.Relays = 2
	start := time.Now()
	cells, fired := 0, 0
	var unreached []string
	for _, actor := range set.Actors("outbox") {
		for _, cp := range checkpointsOf(actor) {
			if cp == engine.ConsumerCalled && actor != "accounting" {
				// Only a consumer that charges a card calls the provider
				// (S19): accounting, crashed there the right way.
				continue
			}
			cells++
			// The stalled relay is the other one, unless the cell is its
			// late mark (lease_lost): then the actor itself.
			stalled := "relay-2"
			switch {
			case cp == engine.RelayLeaseLost:
				stalled = actor
			case actor == "relay-2":
				stalled = "relay-1"
			}
			setup, header := "", ""
			if cp == engine.ConsumerCalled {
				header = "effect: provider-key"
			}
			if cp == engine.ConsumerVersionGap {
				// Version 1's first apply fails, so version 2 arrives first.
				setup = "fail-commit " + actor + " at consumer.effect_applied"
			}
			name := fmt.Sprintf("crash-%s-at-%s", actor, cp)
			sc := parseScene(t, name, fmt.Sprintf(matrixScene, actor, cp, stalled, setup, header))
			res := run(t, sc, RunOptions{})
			if !res.Held {
				t.Errorf("crash %s at %s:\n%s", actor, cp, explainFailure(res))
			}
			if figure(t, res, "outbox", "crashes") > 0 {
				fired++
			} else {
				unreached = append(unreached, actor+" at "+string(cp))
			}
		}
	}
	t.Logf("crash matrix: %d cells, %d crashes fired, in %v", cells, fired, time.Since(start).Round(time.Millisecond))
	if len(unreached) > 0 {
		// A cell whose crash never fired tested nothing.
		t.Errorf("these crashes never fired: %s", strings.Join(unreached, ", "))
	}
}

// checkpointsOf lists the checkpoints a polling relay's pipeline's actor
// reaches (the CDC relay's own are TestCDCCrashMatrix's).
func checkpointsOf(actor string) []engine.Checkpoint {
	return scenes.CheckpointsOf(actor)
}

// cdcMatrixScene crashes the CDC relay at one of its checkpoints among
// payments, a capture, a forced duplicate and a broker outage. No poison:
// a stream has no dead letter, a message the broker always refuses holds
// every later one back.
const cdcMatrixScene = `title: crash the cdc relay at %[1]s
teaches: the CDC relay under a crash
relay: cdc
request key=k-0
crash relay-1 at %[1]s
request
capture
request key=k-1
duplicate
run
broker down
request
run
broker up
drain
expect outbox lost_events == 0
expect outbox phantom_effects == 0
expect outbox duplicate_effects == 0
expect outbox pending == 0
expect outbox crashes == 1
`

// The CDC relay crashed at each of its checkpoints: before the confirmation
// the same ids are published again and the inbox absorbs them; after it,
// nothing is published twice.
func TestCDCCrashMatrix(t *testing.T) {
	t.Parallel()
	set := scenes.DefaultSettings()
	set.CDC = true
	for _, cp := range set.CheckpointsFor("relay-1") {
		sc := parseScene(t, "cdc-"+string(cp), fmt.Sprintf(cdcMatrixScene, cp))
		res := run(t, sc, RunOptions{})
		if !res.Held {
			t.Errorf("crash the cdc relay at %s:\n%s", cp, explainFailure(res))
		}
		again := figure(t, res, "outbox", "publishes") - figure(t, res, "outbox", "published")
		if before := cp != engine.RelayConfirmed && cp != engine.RelayReceived; (again > 0) != before {
			t.Errorf("crash at %s: %d publish(es) beyond one per row, want some only when the broker had accepted and the LSN was not confirmed", cp, again)
		}
	}
}
