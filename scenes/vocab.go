package scenes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/outboxlab/outboxlab/engine"
)

// Mode is which pipelines a scene runs: the one list every flag, header and
// lesson checks a mode against.
type Mode string

// The modes.
const (
	Outbox  Mode = "outbox"  // the transactional outbox, relay and inbox
	Naive   Mode = "naive"   // the dual write alone
	Compare Mode = "compare" // both, side by side
)

// Modes are the modes, as help lists them.
var Modes = []Mode{Outbox, Naive, Compare}

// ParseMode reads a mode; "" is no mode (keep the scene's).
func ParseMode(s string) (Mode, error) {
	if s == "" || slices.Contains(Modes, Mode(s)) {
		return Mode(s), nil
	}
	return "", fmt.Errorf("%q: want outbox, naive or compare", s)
}

// RelayKind is how the outbox's relay finds what to publish: the `relay:`
// header.
type RelayKind string

// The relay kinds.
const (
	RelayClaim     RelayKind = "claim-then-publish" // SKIP LOCKED claim under a lease, publish, mark (S8–S12)
	RelayHoldTx    RelayKind = "hold-transaction"   // the claim's transaction open while publishing (the wrong way, S8)
	RelaySeqCursor RelayKind = "seq-cursor"         // WHERE seq > last (the wrong way)
	RelayCDC       RelayKind = "cdc"                // logical replication, no poll, no lease
)

// RelayKinds are the relay kinds, as help lists them.
var RelayKinds = []RelayKind{RelayClaim, RelayHoldTx, RelaySeqCursor, RelayCDC}

// RelayKindNames are RelayKinds as strings.
func RelayKindNames() []string {
	out := make([]string, len(RelayKinds))
	for i, k := range RelayKinds {
		out[i] = string(k)
	}
	return out
}

// Relay is the relay kind these settings run.
func (s Settings) Relay() RelayKind {
	switch {
	case s.HoldTx:
		return RelayHoldTx
	case s.SeqCursor:
		return RelaySeqCursor
	case s.CDC:
		return RelayCDC
	}
	return RelayClaim
}

// cdcCheckpoints are reached by the CDC relay alone; a polling relay's
// checkpoint lists leave them out (CheckpointsFor puts them in).
var cdcCheckpoints = []engine.Checkpoint{engine.RelayReceived, engine.RelayConfirmed}

// CheckpointsFor lists the checkpoints the crash and move choosers offer
// for an actor: the CDC relay's own under relay: cdc, else every one the
// actor has (CheckpointsOf), as the keys of the lessons were written for.
func (s Settings) CheckpointsFor(actor string) []engine.Checkpoint {
	_, name := SplitActor(actor)
	if s.CDC && strings.HasPrefix(name, "relay-") {
		return cdcRelayCheckpoints()
	}
	return CheckpointsOf(actor)
}

// cdcRelayCheckpoints are the CDC relay's checkpoints, in the order it meets
// them: received, published, marked, then (after the LSN) confirmed.
func cdcRelayCheckpoints() []engine.Checkpoint {
	return []engine.Checkpoint{engine.RelayReceived, engine.RelayPublished, engine.RelayMarked, engine.RelayConfirmed}
}

// Actors names the actors a pipeline of that kind ("outbox" or "naive")
// runs under these settings, in display order: the one list the
// simulator's pipelines, a scene's checks and a lesson's checks use.
func (s Settings) Actors(pipeline string) []string {
	var names []string
	if pipeline == string(Outbox) {
		names = append(names, "api")
		if s.Writers > 1 {
			names = append(names, "api-2")
		}
		for i := 1; i <= s.Relays; i++ {
			names = append(names, fmt.Sprintf("relay-%d", i))
		}
	} else {
		names = append(names, "naive")
	}
	names = append(names, "accounting")
	if s.Workers > 1 {
		names = append(names, "accounting-2")
	}
	names = append(names, "notifications")
	if s.Effect == string(engine.ExternalSecondOutbox) {
		names = append(names, Sender)
	}
	return names
}

// CheckpointsOf lists the checkpoints an actor reaches under these
// settings: CheckpointsOf's, less consumer.called where no consumer calls
// a provider (only accounting does, with an effect: header). A fault armed
// there would never fire, and a random schedule (chaos) that drew it would
// test nothing; without an effect the list is what it was before S19, so a
// seed draws the same schedule.
func (s Settings) CheckpointsOf(actor string) []engine.Checkpoint {
	_, name := SplitActor(actor)
	if s.CDC && strings.HasPrefix(name, "relay-") {
		return cdcRelayCheckpoints()
	}
	cps := CheckpointsOf(actor)
	if s.Effect != "" && (name == "accounting" || name == "accounting-2") {
		return cps
	}
	return slices.DeleteFunc(cps, func(cp engine.Checkpoint) bool { return cp == engine.ConsumerCalled })
}

// Sender is the second outbox's sender (S19, effect: second-outbox): it
// makes the charges accounting queued with the provider.
const Sender = "sender"

// Effects are the `effect:` header's values: "none", then each way a
// consumer makes an external effect (engine.Externals).
var Effects = func() []string {
	out := []string{"none"}
	for _, e := range engine.Externals {
		out = append(out, string(e))
	}
	return out
}()

// parseEffect reads an `effect:` value; "none" is "".
func parseEffect(val string) (string, error) {
	if val == "none" {
		return "", nil
	}
	if _, err := engine.ParseExternal(val); err != nil {
		return "", fmt.Errorf("%q is not one of %s", val, strings.Join(Effects, ", "))
	}
	return val, nil
}

// AllActors names every actor of every pipeline the settings run, once
// each: the writers and relays of each pipeline, then the consumers both
// share by name.
func (s Settings) AllActors() []string {
	var writers, consumers []string
	for _, p := range s.Pipelines() {
		for _, a := range s.Actors(p) {
			switch {
			case a == "api" || a == "api-2" || a == "naive" || strings.HasPrefix(a, "relay-"):
				writers = append(writers, a)
			case !slices.Contains(consumers, a):
				consumers = append(consumers, a)
			}
		}
	}
	return append(writers, consumers...)
}

// CheckpointsOf lists the checkpoints an actor can reach, in order: a
// writer's own, a relay's, a consumer's deliveries and steps. A pipeline
// qualifier (outbox/accounting) is ignored.
func CheckpointsOf(actor string) []engine.Checkpoint {
	_, actor = SplitActor(actor)
	var prefixes []string
	switch {
	case actor == "api" || actor == "naive":
		prefixes = []string{actor + "."}
	case actor == "api-2":
		prefixes = []string{"api."} // a second process of the same API
	case strings.HasPrefix(actor, "relay-"):
		prefixes = []string{"relay."}
	case actor == Sender:
		prefixes = []string{"sender."}
	default:
		prefixes = []string{"broker.", "consumer."}
	}
	var out []engine.Checkpoint
	for _, cp := range Checkpoints {
		if slices.Contains(cdcCheckpoints, cp) {
			continue
		}
		for _, p := range prefixes {
			if strings.HasPrefix(string(cp), p) {
				out = append(out, cp)
			}
		}
	}
	return out
}
