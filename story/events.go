package story

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/outboxlab/outboxlab/sim"
)

// teller turns the related entries into events, keeping what the story has
// told so far (claims, deliveries per consumer, whether the writer
// committed).
type teller struct {
	*builder
	out       []Event
	claims    int            // claims of the message so far: its attempts
	attempt   map[string]int // the attempt each relay's latest claim began
	leased    bool           // a claim not yet given back by a mark, retry or dead letter
	delivered map[string]int // deliveries per consumer
	committed bool           // the writer's COMMIT of the message returned
	capture   bool           // the request was a capture (version 2)
	cdc       bool           // a CDC relay streams it (relay: cdc): no claim, no lease
}

func (b *builder) events() []Event {
	t := &teller{builder: b, delivered: map[string]int{}, attempt: map[string]int{}}
	for _, i := range b.related() {
		t.entry(i, b.tl[i])
	}
	return t.out
}

func (t *teller) add(e sim.Entry, step Step, shape Shape, from, to string, label, short Text) {
	if short.Key == "" {
		short = label
	}
	t.out = append(t.out, Event{Seq: e.Seq, At: e.At, Step: step, Shape: shape, From: from, To: to, Label: label, Short: short})
}

// participant is the column an actor is drawn in.
func participant(actor string) string {
	if actor == "postgres" || actor == sim.ActorOperator {
		return PostgreSQL
	}
	return actor
}

var (
	reAmount = regexp.MustCompile(`\d+\.\d\d [A-Z]{3}`)
	reKey    = regexp.MustCompile(`Idempotency-Key (\S+?)[),]?(?:\s|$)`)
	reStatus = regexp.MustCompile(`answered (\d{3})`)
	reClock  = regexp.MustCompile(`moves (\S+) forward`)
	rePrune  = regexp.MustCompile(`^retention deletes (\d+) (\S+) rows older than (\S+)$`)
)

func (t *teller) entry(i int, e sim.Entry) {
	who := participant(e.Actor)
	switch e.Kind {
	case sim.KindCommand:
		if e.Actor == Client {
			t.request(i, e)
			return
		}
		label := clauseOf(e)
		if strings.Contains(e.Explain, "requeues") {
			label = say("an operator requeues it: same id, new retry budget")
		} else if m := rePrune.FindStringSubmatch(e.Explain); m != nil {
			// The simulator says this one in English only.
			n, _ := strconv.Atoi(m[1])
			label = say("retention deletes %d %s rows older than %s", n, m[2], m[3])
		}
		t.add(e, Operator, Note, PostgreSQL, "", label, say("operator"))
	case sim.KindCheckpoint:
		t.checkpoint(i, e)
	case sim.KindCrash:
		if e.Checkpoint != "" {
			label := say("✗ crash at %s", e.Checkpoint)
			short := label
			h := crashHint[e.Checkpoint]
			if t.cdc && cdcCrashHint[e.Checkpoint] != "" {
				h = cdcCrashHint[e.Checkpoint]
			}
			if h != "" {
				label, short = say("✗ crash at %s: %s", e.Checkpoint, say(h)), say("✗ crash: %s", say(h))
			}
			t.add(e, Crash, Wreck, who, "", label, short)
			return
		}
		t.add(e, Crash, Wreck, who, "", say("✗ %s", clauseOf(e)), say("✗ crash"))
	case sim.KindRestart:
		switch {
		case e.Actor == "postgres":
			t.add(e, Restart, Note, who, "", say("PostgreSQL is back after crash recovery"), say("back"))
		case strings.HasPrefix(e.Actor, "relay") && t.cdc:
			t.add(e, Restart, Note, who, "", say("restarted: streams again from the slot's confirmed LSN"), say("restarted"))
		case strings.HasPrefix(e.Actor, "relay"):
			t.add(e, Restart, Note, who, "", say("restarted: a new process, a new worker id"), say("restarted"))
		default:
			t.add(e, Restart, Note, who, "", say("restarted: a new process"), say("restarted"))
		}
	case sim.KindAnswer:
		t.answer(e)
	case sim.KindError:
		t.failure(e)
	case sim.KindFault:
		t.fault(e)
	case sim.KindDown:
		t.add(e, Fault, Note, who, "", say("✗ %s", clauseOf(e)), say("✗ down"))
	case sim.KindBlocked:
		t.add(e, Blocked, Note, who, "", say("waits for a row lock: the same inbox key, not committed yet"), say("waits for a row lock"))
	case sim.KindClock:
		label := say("clock")
		if m := reClock.FindStringSubmatch(e.Explain); m != nil {
			label = say("clock +%s", m[1])
		}
		t.add(e, Clock, Divider, "", "", label, Text{})
	default:
		t.add(e, Step(e.Kind), Note, who, "", clauseOf(e), verbatim(string(e.Kind)))
	}
}

// cdcCrashHint is crashHint for a CDC relay: its position is the slot's
// confirmed LSN, not a mark.
var cdcCrashHint = map[string]string{
	"relay.received":  "received, LSN not confirmed",
	"relay.published": "published, LSN not confirmed",
	"relay.marked":    "marked, LSN not confirmed",
}

// crashHint says what a crash at a checkpoint leaves behind (a key of the
// catalog).
var crashHint = map[string]string{
	"api.inserted":            "nothing committed",
	"api.committed":           "payment and event committed",
	"naive.inserted":          "nothing committed",
	"naive.committed":         "committed, not published",
	"naive.published":         "published, not committed",
	"relay.claimed":           "leased, not published",
	"relay.published":         "published, not marked",
	"broker.delivered":        "delivered, not processed",
	"consumer.inbox_inserted": "marker rolled back",
	"consumer.effect_applied": "effect rolled back",
	"consumer.committed":      "committed, not ACKed",
	"consumer.called":         "the provider has answered",
	"sender.called":           "charged, not marked sent",
}

func (t *teller) request(i int, e sim.Entry) {
	x := e.Explain
	label, short := say("POST /payments"), say("POST /payments")
	keyed := false // the label says the key already
	switch {
	case strings.HasPrefix(x, "the client captures"):
		t.capture = true
		label, short = say("POST capture (version 2)"), say("capture")
	case strings.Contains(x, "with another amount"):
		label, short, keyed = say("POST /payments: same key, other amount"), say("POST (key reused)"), true
	case strings.HasPrefix(x, "the client retries"):
		label, short = say("POST /payments again"), say("POST again")
	}
	if strings.HasPrefix(x, "a client asks") {
		if m := reAmount.FindString(x); m != "" {
			label = say("%s %s", label, m)
		}
	}
	if m := reKey.FindStringSubmatch(x); m != nil && !keyed {
		label = say("%s, key %s", label, m[1])
	}
	t.add(e, Request, Arrow, Client, t.takerOf(i), label, short)
}

func (t *teller) answer(e sim.Entry) {
	x := said(e)
	label, short := clauseOf(e), say("answer")
	if m := reStatus.FindStringSubmatch(x); m != nil {
		label, short = say("%s Created", m[1]), verbatim(m[1])
		if strings.Contains(x, "stored response") {
			label, short = say("%s: the stored response", m[1]), say("%s (stored)", m[1])
		}
	} else if strings.HasPrefix(x, "captured") {
		label, short = say("captured: version 2"), say("captured")
	}
	t.add(e, Answer, Reply, participant(e.Actor), Client, label, short)
}

func (t *teller) failure(e sim.Entry) {
	x, who := said(e), participant(e.Actor)
	switch {
	case strings.Contains(x, "COMMIT failed"):
		t.add(e, CommitFailed, Lost, who, PostgreSQL, say("COMMIT fails: all rolled back"), say("COMMIT fails"))
	case strings.Contains(x, "during COMMIT"):
		t.add(e, CommitFailed, Lost, who, PostgreSQL, say("COMMIT: connection lost, outcome unknown"), say(commitLost))
	case reStatus.MatchString(x):
		m := reStatus.FindStringSubmatch(x)
		t.add(e, Answer, Reply, who, Client, say("%s: %s", m[1], told{e: e, rest: true}), verbatim(m[1]))
	default:
		t.add(e, Crash, Wreck, who, "", say("✗ %s", clauseOf(e)), say("✗ error"))
	}
}

// armedSays are what a fault armed on an actor is called on its lifeline,
// long (%s: the checkpoint) and short, by the script's command.
var armedSays = map[string][2]string{
	"crash":       {"⚑ armed: a crash at %s", "⚑ crash armed"},
	"stall":       {"⚑ armed: a stall at %s", "⚑ stall armed"},
	"fail-commit": {"⚑ armed: its COMMIT fails at %s", "⚑ COMMIT to fail"},
}

func (t *teller) fault(e sim.Entry) {
	who, x := participant(e.Actor), e.Explain
	switch {
	case strings.HasPrefix(x, "armed: "):
		kind := strings.Fields(x)[1] // a script's command: crash, stall, fail-commit
		long, short := say("⚑ armed: %s at %s", kind, e.Checkpoint), say("⚑ %s", kind)
		if a, ok := armedSays[kind]; ok {
			// Said in words, in the reader's language: the command's name
			// is the script's, not a sentence's.
			long, short = say(a[0], e.Checkpoint), say(a[1])
		}
		t.add(e, Fault, Note, who, "", long, short)
	case strings.Contains(x, " stalls at "):
		t.add(e, Stall, Note, who, "", say("‖ stalls at %s (a long pause)", e.Checkpoint), say("‖ stalls"))
	case strings.Contains(x, " resumes at "):
		t.add(e, Stall, Note, who, "", say("▶ resumes, unaware of the time that passed"), say("▶ resumes"))
	case strings.Contains(x, "twice"):
		t.add(e, Fault, Note, who, "", say("⚑ will hand out the next delivery twice"), say("⚑ next delivery twice"))
	case strings.Contains(x, "is down"):
		t.add(e, Fault, Note, who, "", say("✗ down: publishes and deliveries fail"), say("✗ down"))
	case strings.Contains(x, "back up"):
		t.add(e, Fault, Note, who, "", say("back up"), say("up"))
	case e.Actor == "postgres":
		t.add(e, Fault, Wreck, who, "", say("✗ stops at once, as on a power cut"), say("✗ stops"))
	default:
		t.add(e, Fault, Note, who, "", clauseOf(e), say("fault"))
	}
}

func (t *teller) checkpoint(i int, e sim.Entry) {
	who := participant(e.Actor)
	n := len(e.MessageIDs)
	var batch Text // said after a label when the step took several messages
	if n > 1 {
		batch = say(" (batch of %d)", n)
	}
	switch e.Checkpoint {
	case "api.begin", "naive.begin":
		t.add(e, Begin, Arrow, who, PostgreSQL, say("BEGIN"), Text{})
	case "api.inserted":
		if t.capture {
			t.add(e, Insert, Arrow, who, PostgreSQL, say("UPDATE payment + INSERT outbox row%s", batch), say("UPDATE+INSERT v2"))
		} else {
			t.add(e, Insert, Arrow, who, PostgreSQL, say("INSERT payment + outbox row%s", batch), say("INSERT payment+outbox"))
		}
	case "naive.inserted":
		t.add(e, Insert, Arrow, who, PostgreSQL, say("INSERT payment (no outbox)"), say("INSERT payment"))
	case "api.committed", "naive.committed":
		t.committed = true
		t.add(e, Commit, Arrow, who, PostgreSQL, say("COMMIT"), Text{})
	case "api.replayed":
		t.add(e, Replayed, Arrow, who, PostgreSQL, say("Idempotency-Key found: nothing new"), say("key found"))
	case "api.resolved":
		t.committed = true
		t.add(e, Replayed, Arrow, who, PostgreSQL, say("idempotency record: it did commit"), say(recordFound))
	case "naive.published":
		if t.committed {
			t.add(e, Publish, Arrow, who, Broker, say("publish, after COMMIT"), say("publish"))
		} else {
			t.add(e, Publish, Arrow, who, Broker, say("publish, before COMMIT"), say("publish"))
		}
	case "relay.claimed":
		t.claim(e)
	case "relay.received":
		t.cdc = true
		t.add(e, Receive, Arrow, PostgreSQL, who, say("streamed from the slot: no poll, no lease"), say("from the slot"))
	case "relay.confirmed":
		t.add(e, Confirm, Arrow, who, PostgreSQL, say("confirm the LSN to the slot"), say("confirm LSN"))
	case "relay.published":
		if t.cdc {
			t.add(e, Publish, Arrow, who, Broker, say("publish (LSN not confirmed)"), say("publish"))
			break
		}
		n := t.attempt[e.Actor]
		if e.DedupDropped {
			t.add(e, PublishDropped, Arrow, who, Broker, say("publish (attempt %d): duplicate ack, dropped", n), say("publish %d: dropped", n))
			break
		}
		t.add(e, Publish, Arrow, who, Broker, say("publish (attempt %d)", n), say("publish, attempt %d", n))
	case "relay.marked":
		if t.cdc {
			t.add(e, Mark, Arrow, who, PostgreSQL, say("published_at, for retention only"), say("retention mark"))
			break
		}
		t.leased = false
		if e.Rows == 0 {
			t.add(e, Mark, Arrow, who, PostgreSQL, say(markedNone), say("mark: 0 rows"))
		} else {
			t.add(e, Mark, Arrow, who, PostgreSQL, say("mark published%s", batch), say("mark published"))
		}
	case "relay.retry_scheduled":
		t.leased = false
		att, next := fmt.Sprint(t.attempt[e.Actor]), Text{}
		if a, ok := args(e, fmtRetry); ok {
			att, next = a[0], say(" at %s", clockTime(a[1]))
		}
		t.add(e, PublishFailed, Lost, who, Broker, say("publish fails (attempt %s)", att), say("publish ✗"))
		t.add(e, RetryScheduled, Arrow, who, PostgreSQL, say("schedule the retry%s", next), say("retry%s", next))
	case "relay.dead_lettered":
		t.leased = false
		label := say("publish fails (attempt %s)", fmt.Sprint(t.attempt[e.Actor]))
		if a, ok := args(e, fmtDeadLetter); ok {
			label = say("publish fails (attempt %s of %s)", a[0], a[1])
		}
		t.add(e, PublishFailed, Lost, who, Broker, label, say("publish ✗"))
		t.add(e, DeadLettered, Arrow, who, PostgreSQL, say("dead-letter it: never claimed again"), say("dead-letter it"))
	case "relay.lease_lost":
		t.add(e, LeaseLost, Note, who, "", say("lease lost: another worker holds the row now, nothing written"), say("lease lost: nothing written"))
	case "broker.delivered":
		t.deliver(i, e)
	case "consumer.inbox_inserted":
		switch {
		case strings.HasPrefix(e.Statement, "find_"):
			t.add(e, InboxInsert, Arrow, who, PostgreSQL, say("SELECT earlier effects: %d found", e.Rows), say("SELECT: %d", e.Rows))
		case n > 1:
			t.add(e, InboxInsert, Arrow, who, PostgreSQL, say("inbox INSERT%s", batch), say("inbox"))
		case e.Rows == 0:
			t.add(e, InboxInsert, Arrow, who, PostgreSQL, say("inbox INSERT: 0 rows, seen before"), say("inbox: 0 rows (seen)"))
		default:
			t.add(e, InboxInsert, Arrow, who, PostgreSQL, say("inbox INSERT: new"), say("inbox: new"))
		}
	case "consumer.duplicate":
		t.add(e, Duplicate, Note, who, "", say("duplicate: ignored, no second effect"), say("duplicate: ignored"))
	case "consumer.version_gap":
		if a, ok := args(e, fmtParked); ok {
			// Parked (versions: park): kept in the consumer's table and
			// committed; the ACK that follows is its own event.
			t.add(e, Parked, Arrow, who, PostgreSQL, say("park: version %s ahead of %s", a[2], a[1]), say("park"))
		} else if a, ok := args(e, fmtGap); ok {
			t.add(e, VersionGap, Arrow, who, PostgreSQL, say("ROLLBACK: version gap (want %s, got %s)", a[1], a[2]), say("ROLLBACK: version gap"))
			t.add(e, Nack, Reply, who, Broker, say("NACK: deliver it again later"), say("NACK"))
		} else if a, ok := args(e, fmtBehind); ok {
			t.add(e, VersionGap, Arrow, who, PostgreSQL, say("ROLLBACK: version %s is old", a[1]), say("ROLLBACK: old"))
			t.add(e, Nack, Reply, who, Broker, say("reject: to dead letters"), say("reject"))
		} else {
			t.add(e, VersionGap, Arrow, who, PostgreSQL, say("ROLLBACK: version gap"), say("ROLLBACK: gap"))
		}
	case "consumer.effect_applied":
		label, short := say("effect%s", batch), say("effect")
		if e.Statement != "" {
			label, short = say("effect: %s%s", e.Statement, batch), say("effect: %s", strings.TrimPrefix(e.Statement, "insert_"))
		}
		t.add(e, Effect, Arrow, who, PostgreSQL, label, short)
	case "consumer.committed":
		t.add(e, Commit, Arrow, who, PostgreSQL, say("COMMIT"), Text{})
	case "consumer.acked":
		if e.Statement == "commit" { // the duplicate's path commits, then ACKs
			t.add(e, Commit, Arrow, who, PostgreSQL, say("COMMIT"), Text{})
		}
		if _, late := args(e, fmtLateAck); late {
			t.add(e, Ack, Reply, who, Broker, say("ACK, too late: handed out again"), say("ACK (late)"))
		} else {
			t.add(e, Ack, Reply, who, Broker, say("ACK%s", batch), say("ACK"))
		}
	case "consumer.called", "sender.called":
		t.charge(e)
	case "sender.marked":
		t.add(e, ChargeSent, Arrow, who, PostgreSQL, say("mark the charge sent"), say("mark sent"))
	default:
		t.add(e, Step(e.Checkpoint), Note, who, "", clauseOf(e), verbatim(e.Checkpoint))
	}
}

// charge is a call to the card provider and its answer (S19), read from the
// phrase the caller gave its checkpoint.
func (t *teller) charge(e sim.Entry) {
	who := participant(e.Actor)
	if a, ok := args(e, fmtChargeReplayed); ok {
		t.add(e, Charge, Arrow, who, Provider, say("POST /charges, the same key"), say("POST /charges"))
		t.add(e, Charge, Reply, Provider, who, say("201: charge %s again, nothing charged", a[0]), say(chargeReplayed))
		return
	}
	call, n := say("POST /charges, no Idempotency-Key"), ""
	if a, ok := args(e, fmtChargeKeyed); ok {
		call, n = say("POST /charges, key = the message id"), a[0]
	} else if a, ok := args(e, fmtChargeNoKey); ok {
		n = a[0]
	}
	t.add(e, Charge, Arrow, who, Provider, call, say("POST /charges"))
	t.add(e, Charge, Reply, Provider, who, say("201: charge %s", n), say("201 charged"))
}

// The labels the outcome looks for.
const (
	chargeReplayed = "201 (replayed)"         // the provider answered a key's first charge
	recordFound    = "record found"           // the idempotency record says the COMMIT did happen
	commitLost     = "COMMIT lost"            // the COMMIT's reply was lost
	markedNone     = "mark published: 0 rows" // the mark found another worker's lease
)

func (t *teller) claim(e sim.Entry) {
	t.claims++
	t.attempt[e.Actor] = t.claims
	who := participant(e.Actor)
	again := t.leased
	t.leased = true
	switch a, ok := args(e, fmtLeaseExpired); {
	case ok && again && a[2] != "0":
		t.add(e, Claim, Arrow, who, PostgreSQL, say("reclaim: the lease expired, new lease until %s", clockTime(a[1])), say("reclaim (lease expired)"))
		return
	case ok:
		t.add(e, Claim, Arrow, who, PostgreSQL, say("claim: lease until %s", clockTime(a[1])), say("claim, lease %s", clockTime(a[1])))
		return
	}
	if a, ok := args(e, fmtLease); ok {
		t.add(e, Claim, Arrow, who, PostgreSQL, say("claim: lease until %s", clockTime(a[1])), say("claim, lease %s", clockTime(a[1])))
		return
	}
	if _, ok := args(e, fmtLeaseHeld); ok {
		t.add(e, Claim, Arrow, who, PostgreSQL, say("claim: FOR UPDATE, transaction left open"), say("claim (tx open)"))
		return
	}
	t.add(e, Claim, Arrow, who, PostgreSQL, say("claim"), Text{})
}

func (t *teller) deliver(i int, e sim.Entry) {
	to, sub := t.target[i], t.sub[i]
	t.delivered[sub]++
	k := t.delivered[sub]
	switch {
	case e.Delivery > 1:
		t.add(e, Deliver, Arrow, Broker, to, say("redeliver (delivery %d)", e.Delivery), say("redeliver, delivery %d", e.Delivery))
	case k > 1:
		t.add(e, Deliver, Arrow, Broker, to, say("deliver again: published again, same id"), say("deliver again"))
	default:
		t.add(e, Deliver, Arrow, Broker, to, say("deliver (delivery 1)"), say("deliver"))
	}
}
