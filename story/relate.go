package story

import (
	"slices"
	"strings"

	"github.com/outboxlab/outboxlab/sim"
)

// builder reads a timeline for one message of one pipeline.
type builder struct {
	tl     []sim.Entry
	pipe   string
	msg    string
	writer string // api or naive: who takes the client's requests (its checkpoints' prefix)

	// target is the worker that took each delivery (by timeline index);
	// sub the consumer (broker subscription) it was addressed to.
	target, sub map[int]string
	// begins is the writer's BEGIN each client command led to.
	begins map[int]int
}

func newBuilder(tl []sim.Entry, pipe, msg string) *builder {
	b := &builder{tl: tl, pipe: pipe, msg: msg, writer: "api", target: map[int]string{}, sub: map[int]string{}, begins: map[int]int{}}
	if pipe == "naive" {
		b.writer = "naive"
	}
	b.matchDeliveries()
	b.matchRequests()
	return b
}

// ours: an entry of this pipeline, or of none (client, clock, broker faults).
func (b *builder) ours(e sim.Entry) bool { return e.Pipeline == b.pipe || e.Pipeline == "" }

// matchDeliveries finds, for every delivery, the worker that took it: the
// first later inbox insert of the same message and delivery count by a
// worker of the consumer it was addressed to. The broker's entry names the
// consumer only; with two workers either may take it.
func (b *builder) matchDeliveries() {
	used := map[int]bool{}
	for i, e := range b.tl {
		if e.Pipeline != b.pipe || e.Checkpoint != "broker.delivered" || len(e.MessageIDs) == 0 {
			continue
		}
		sub := ""
		if a, ok := args(e, fmtDelivery); ok {
			sub = a[0]
		}
		b.sub[i] = sub
		b.target[i] = sub
		for j := i + 1; j < len(b.tl); j++ {
			f := b.tl[j]
			if used[j] || f.Pipeline != b.pipe || f.Checkpoint != "consumer.inbox_inserted" || f.Delivery != e.Delivery ||
				!slices.Contains(f.MessageIDs, e.MessageIDs[0]) || (sub != "" && consumerOf(f.Actor) != sub) {
				continue
			}
			used[j] = true
			b.target[i] = f.Actor
			if sub == "" {
				b.sub[i] = consumerOf(f.Actor)
			}
			break
		}
		if b.target[i] == "" {
			b.target[i], b.sub[i] = "consumer", "consumer"
		}
	}
}

// matchRequests pairs each client command with the writer's BEGIN that took
// it: the first later one for the same payment not taken yet. In compare mode
// both pipelines take every request; this pairs this pipeline's.
func (b *builder) matchRequests() {
	used := map[int]bool{}
	for i, e := range b.tl {
		if e.Actor != Client || e.Kind != sim.KindCommand {
			continue
		}
		for j := i + 1; j < len(b.tl); j++ {
			f := b.tl[j]
			if !used[j] && f.Pipeline == b.pipe && f.Checkpoint == b.writer+".begin" && b.isWriter(f.Actor) && f.PaymentID == e.PaymentID {
				used[j], b.begins[i] = true, j
				break
			}
		}
	}
}

// requestOf reports whether the client command at i concerns the message:
// whether the writer, from the BEGIN that took it to its next BEGIN, named
// it (a retry with an Idempotency-Key plans a new id, then finds the old one).
func (b *builder) requestOf(i int) bool {
	j, ok := b.begins[i]
	if !ok {
		return false
	}
	taker := b.tl[j].Actor
	for k := j; k < len(b.tl); k++ {
		f := b.tl[k]
		if f.Pipeline != b.pipe || f.Actor != taker {
			continue
		}
		if k > j && f.Checkpoint == b.writer+".begin" {
			return false
		}
		if slices.Contains(f.MessageIDs, b.msg) {
			return true
		}
	}
	return false
}

// isWriter reports whether actor is one of the pipeline's writers: naive,
// or api and api-2 (a second API process with `writers: 2`).
func (b *builder) isWriter(actor string) bool {
	return actor == b.writer || (b.writer == "api" && actor == "api-2")
}

// takerOf is the writer that took the client command at i: the actor of the
// BEGIN matched to it, else the pipeline's writer.
func (b *builder) takerOf(i int) string {
	if j, ok := b.begins[i]; ok {
		return b.tl[j].Actor
	}
	return b.writer
}

// consumerOf is the consumer a worker belongs to: accounting-2 is a second
// worker of accounting.
func consumerOf(actor string) string {
	if i := strings.LastIndexByte(actor, '-'); i > 0 && strings.Trim(actor[i+1:], "0123456789") == "" && i+1 < len(actor) {
		return actor[:i]
	}
	return actor
}

// ambient entries belong to nobody's message: the clock, the broker going
// down, PostgreSQL stopping, retention. A story shows those that happened
// while it went on.
func ambient(e sim.Entry) bool {
	switch {
	case e.Kind == sim.KindClock:
		return true
	case e.Actor == "postgres":
		return true
	case e.Actor == Broker && e.Kind == sim.KindFault:
		return true
	case e.Actor == sim.ActorOperator && len(e.MessageIDs) == 0 && e.Kind == sim.KindCommand:
		return true
	}
	return false
}

// related lists the timeline entries that concern the message, in order.
//
// An entry that names message ids concerns those messages. One that names
// none (a crash, a restart, an answer, a lock wait, a mark of 0 rows)
// concerns what its actor last had in hand: the ids of its previous entry
// that named any, where a delivery is in the hands of the worker that took
// it. A request concerns the message its BEGIN started; an armed fault, the
// message it fired on; ambient entries, any story they happen in the middle
// of.
func (b *builder) related() []int {
	var out, amb []int
	last := map[string][]string{}
	armed := map[string]int{}
	for i, e := range b.tl {
		if !b.ours(e) {
			continue
		}
		rel := false
		switch {
		case e.Actor == Client && e.Kind == sim.KindCommand:
			rel = b.requestOf(i)
		case e.Kind == sim.KindFault && e.Pipeline == "" && e.Checkpoint != "":
			armed[e.Actor] = i // told when it fires
			continue
		case ambient(e):
			amb = append(amb, i)
			continue
		case e.Kind == sim.KindNote || e.Kind == sim.KindSkip || e.Kind == sim.KindStuck:
			continue
		case len(e.MessageIDs) > 0:
			rel = slices.Contains(e.MessageIDs, b.msg)
			last[e.Actor] = e.MessageIDs
			if w, ok := b.target[i]; ok {
				last[w] = e.MessageIDs
			}
		default:
			rel = slices.Contains(last[e.Actor], b.msg)
		}
		if fires(e) {
			if a, ok := armed[e.Actor]; ok {
				delete(armed, e.Actor)
				if rel {
					out = append(out, a)
				}
			}
		}
		if rel {
			out = append(out, i)
		}
	}
	if len(out) == 0 {
		return nil
	}
	first, lastSeq := slices.Min(out), slices.Max(out)
	for _, i := range amb {
		if i > first && i < lastSeq {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// fires: the entry an armed fault turns into (a crash, a failed or lost
// COMMIT, a stall).
func fires(e sim.Entry) bool {
	return e.Kind == sim.KindCrash || e.Kind == sim.KindError || (e.Kind == sim.KindFault && e.Pipeline != "")
}
