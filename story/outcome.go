package story

import (
	"slices"
	"strings"
)

// rank orders the columns as a message travels: client, writer,
// PostgreSQL, relays, broker, consumers.
func rank(p string) int {
	switch {
	case p == Client:
		return 0
	case p == "api" || p == "api-2" || p == "naive":
		return 1
	case p == PostgreSQL:
		return 2
	case strings.HasPrefix(p, "relay"):
		return 3
	case p == Broker:
		return 4
	case p == Provider:
		return 6
	}
	return 5
}

// participants are the columns the events use, in pipeline order.
func participants(evs []Event) []string {
	var out []string
	for _, e := range evs {
		for _, p := range []string{e.From, e.To} {
			if p != "" && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b string) int {
		if r := rank(a) - rank(b); r != 0 {
			return r
		}
		return strings.Compare(a, b)
	})
	return out
}

// tallies counts, per consumer, the deliveries it got, the effects it
// committed and the duplicates its inbox ignored. An effect counts when its
// worker's COMMIT follows; a crash, a version gap or the next delivery
// before that means it rolled back.
func tallies(evs []Event) []Tally {
	by := map[string]*Tally{}
	get := func(worker string) *Tally {
		c := consumerOf(worker)
		t, ok := by[c]
		if !ok {
			t = &Tally{Consumer: c}
			by[c] = t
		}
		if !slices.Contains(t.Workers, worker) {
			t.Workers = append(t.Workers, worker)
		}
		return t
	}
	pending := map[string]bool{}
	for _, e := range evs {
		switch e.Step {
		case Deliver:
			get(e.To).Deliveries++
			pending[e.To] = false
		case Duplicate:
			get(e.From).Duplicates++
		case Effect:
			pending[e.From] = true
		case Commit:
			if pending[e.From] {
				get(e.From).Effects++
				pending[e.From] = false
			}
		case VersionGap:
			get(e.From).Refused++
			pending[e.From] = false
		case Parked:
			get(e.From).Parked++
			pending[e.From] = false
		case Crash:
			pending[e.From] = false
		}
	}
	var out []Tally
	for _, t := range by {
		slices.Sort(t.Workers)
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b Tally) int { return strings.Compare(a.Consumer, b.Consumer) })
	return out
}

func count(evs []Event, keep func(Event) bool) int {
	n := 0
	for _, e := range evs {
		if keep(e) {
			n++
		}
	}
	return n
}

// outcome says what came of the message: was it written, published, and
// how many effects each consumer committed.
func outcome(s Story) []Text {
	evs := s.Events
	step := func(st Step) func(Event) bool { return func(e Event) bool { return e.Step == st } }
	writer := func(e Event) bool { return e.Step == Commit && rank(e.From) == 1 }
	committed := count(evs, writer) > 0 || count(evs, func(e Event) bool { return e.Step == Replayed && e.Short.Key == recordFound }) > 0
	failed := count(evs, step(CommitFailed)) > 0
	lostReply := count(evs, func(e Event) bool { return e.Step == CommitFailed && e.Short.Key == commitLost }) > 0
	publishes := count(evs, step(Publish))
	refused := count(evs, step(PublishFailed))
	dead := count(evs, step(DeadLettered)) > 0
	marks := count(evs, func(e Event) bool { return e.Step == Mark && e.Label.Key != markedNone })
	naive := s.Pipeline == "naive"

	written := func(e Event) bool {
		return e.Step == Insert || e.Step == Commit || e.Step == Publish || e.Step == CommitFailed
	}
	if count(evs, written) == 0 {
		return []Text{say("never written: nothing was created for it")}
	}
	var out []Text
	switch {
	case naive && failed && publishes > 0:
		out = append(out, say("published before a COMMIT that failed: the payment does not exist, yet the consumers were told of it (a phantom event)"))
		return append(out, consumerLines(s.Consumers)...)
	case lostReply && !committed:
		out = append(out, say("the COMMIT's reply was lost: the client cannot tell whether the payment exists"))
	case failed && !committed && publishes == 0:
		out = append(out, say("the COMMIT failed: neither the payment nor its event exists, and nothing is published"))
		return append(out, consumerLines(s.Consumers)...)
	}
	switch {
	case publishes == 0 && naive && committed:
		out = append(out, say("committed, never published: no consumer will ever hear of this payment (a lost event)"))
	case publishes == 0 && dead:
		out = append(out, say("dead-lettered after %s: no consumer hears of it until an operator requeues it", say("%d failed attempts", refused)))
	case publishes == 0 && committed:
		out = append(out, say("committed in the outbox, not published yet: a relay will publish it"))
	case publishes == 1 && refused > 0:
		out = append(out, say("published once, after %s", say("%d failed attempts", refused)))
	case publishes == 1:
		out = append(out, say("published once"))
	case publishes > 1 && !naive && marks == 1:
		out = append(out, say("published %d times with the same id, marked published once", publishes))
	case publishes > 1:
		out = append(out, say("published %d times with the same id", publishes))
	}
	if dropped := count(evs, step(PublishDropped)); dropped > 0 {
		out = append(out, say("%d more publish(es) of the same id inside the broker's dedup window: acked as duplicates and dropped", dropped))
	}
	out = append(out, consumerLines(s.Consumers)...)
	return append(out, chargeLines(evs)...)
}

// chargeLines says how many times the card provider charged for the
// message (S19): its answers that were not a replay of a key's first.
func chargeLines(evs []Event) []Text {
	calls := count(evs, func(e Event) bool { return e.Step == Charge && e.Shape == Arrow })
	if calls == 0 {
		return nil
	}
	charged := count(evs, func(e Event) bool { return e.Step == Charge && e.Shape == Reply && e.Short.Key != chargeReplayed })
	switch charged {
	case 0:
		return []Text{say("the card provider was called %d times and charged nothing new", calls)}
	case 1:
		return []Text{say("the card provider charged it once (%d calls)", calls)}
	}
	return []Text{say("the card provider charged it %d times: a double charge", charged)}
}

func consumerLines(ts []Tally) []Text {
	var out []Text
	for _, t := range ts {
		name := verbatim(t.Consumer)
		if len(t.Workers) > 1 || (len(t.Workers) == 1 && t.Workers[0] != t.Consumer) {
			name = say("%s (workers %s)", t.Consumer, strings.Join(t.Workers, ", "))
		}
		deliveries := say("%d deliveries", t.Deliveries)
		line := say("%s: %s, %s", name, deliveries, say("%d effects", t.Effects))
		if t.Effects == 0 {
			line = say("%s: %s, no effect", name, deliveries)
		}
		var why []Text
		if t.Duplicates > 0 {
			why = append(why, say("its inbox ignored %s", say("%d duplicates", t.Duplicates)))
		}
		if t.Refused > 0 {
			why = append(why, say("%d deliveries refused for a version gap", t.Refused))
		}
		if t.Parked > 0 {
			why = append(why, say("%d deliveries parked ahead of their version, applied in the transaction of the one they waited for", t.Parked))
		}
		if len(why) > 0 {
			line = say("%s (%s)", line, why)
		}
		if t.Effects > 1 {
			line = say("%s: the effect was applied more than once", line)
		}
		out = append(out, line)
	}
	return out
}
