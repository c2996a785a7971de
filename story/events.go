package story

import (
	"fmt"
	"regexp"
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
}

func (b *builder) events() []Event {
	t := &teller{builder: b, delivered: map[string]int{}, attempt: map[string]int{}}
	for _, i := range b.related() {
		t.entry(i, b.tl[i])
	}
	return t.out
}

func (t *teller) add(e sim.Entry, step Step, shape Shape, from, to, label, short string) {
	if short == "" {
		short = label
	}
	t.out = append(t.out, Event{Seq: e.Seq, At: e.At, Step: step, Shape: shape, From: from, To: to, Label: label, Short: short})
}

// participant is the column an actor is drawn in.
func participant(actor string) string {
	if actor == "postgres" || actor == "operator" {
		return PostgreSQL
	}
	return actor
}

var (
	reAmount = regexp.MustCompile(`\d+\.\d\d [A-Z]{3}`)
	reKey    = regexp.MustCompile(`Idempotency-Key (\S+?)[),]?(?:\s|$)`)
	reStatus = regexp.MustCompile(`answered (\d{3})`)
	reClock  = regexp.MustCompile(`moves (\S+) forward`)
)

func (t *teller) entry(i int, e sim.Entry) {
	who := participant(e.Actor)
	switch e.Kind {
	case "command":
		if e.Actor == Client {
			t.request(e)
			return
		}
		label := clause(said(e))
		if strings.Contains(e.Explain, "requeues") {
			label = "an operator requeues it: same id, new retry budget"
		}
		t.add(e, Operator, Note, PostgreSQL, "", label, "operator")
	case "checkpoint":
		t.checkpoint(i, e)
	case "crash":
		if e.Checkpoint != "" {
			label, short := "✗ crash at "+e.Checkpoint, "✗ crash at "+e.Checkpoint
			if h := crashHint[e.Checkpoint]; h != "" {
				label, short = label+": "+h, "✗ crash: "+h
			}
			t.add(e, Crash, Wreck, who, "", label, short)
			return
		}
		t.add(e, Crash, Wreck, who, "", "✗ "+clause(said(e)), "✗ crash")
	case "restart":
		switch {
		case e.Actor == "postgres":
			t.add(e, Restart, Note, who, "", "PostgreSQL is back after crash recovery", "back")
		case strings.HasPrefix(e.Actor, "relay"):
			t.add(e, Restart, Note, who, "", "restarted: a new process, a new worker id", "restarted")
		default:
			t.add(e, Restart, Note, who, "", "restarted: a new process", "restarted")
		}
	case "answer":
		t.answer(e)
	case "error":
		t.failure(e)
	case "fault":
		t.fault(e)
	case "down":
		t.add(e, Fault, Note, who, "", "✗ "+clause(said(e)), "✗ down")
	case "blocked":
		t.add(e, Blocked, Note, who, "", "waits for a row lock: the same inbox key, not committed yet", "waits for a row lock")
	case "clock":
		label := "clock"
		if m := reClock.FindStringSubmatch(e.Explain); m != nil {
			label = "clock +" + m[1]
		}
		t.add(e, Clock, Divider, "", "", label, "")
	default:
		t.add(e, Step(e.Kind), Note, who, "", clause(said(e)), e.Kind)
	}
}

// crashHint says what a crash at a checkpoint leaves behind.
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
}

func (t *teller) request(e sim.Entry) {
	x := e.Explain
	label, short := "POST /payments", "POST /payments"
	switch {
	case strings.HasPrefix(x, "the client captures"):
		t.capture = true
		label, short = "POST capture (version 2)", "capture"
	case strings.Contains(x, "with another amount"):
		label, short = "POST /payments: same key, other amount", "POST (key reused)"
	case strings.HasPrefix(x, "the client retries"):
		label, short = "POST /payments again", "POST again"
	}
	if strings.HasPrefix(x, "a client asks") {
		if m := reAmount.FindString(x); m != "" {
			label += " " + m
		}
	}
	if m := reKey.FindStringSubmatch(x); m != nil && !strings.Contains(label, "key") {
		label += ", key " + m[1]
	}
	t.add(e, Request, Arrow, Client, t.writer, label, short)
}

func (t *teller) answer(e sim.Entry) {
	x := said(e)
	label, short := clause(x), "answer"
	if m := reStatus.FindStringSubmatch(x); m != nil {
		label, short = m[1]+" Created", m[1]
		if strings.Contains(x, "stored response") {
			label, short = m[1]+": the stored response", m[1]+" (stored)"
		}
	} else if strings.HasPrefix(x, "captured") {
		label, short = "captured: version 2", "captured"
	}
	t.add(e, Answer, Reply, participant(e.Actor), Client, label, short)
}

func (t *teller) failure(e sim.Entry) {
	x, who := said(e), participant(e.Actor)
	switch {
	case strings.Contains(x, "COMMIT failed"):
		t.add(e, CommitFailed, Lost, who, PostgreSQL, "COMMIT fails: all rolled back", "COMMIT fails")
	case strings.Contains(x, "during COMMIT"):
		t.add(e, CommitFailed, Lost, who, PostgreSQL, "COMMIT: connection lost, outcome unknown", "COMMIT lost")
	case reStatus.MatchString(x):
		m := reStatus.FindStringSubmatch(x)
		t.add(e, Answer, Reply, who, Client, m[1]+": "+strings.TrimSpace(x[strings.Index(x, ":")+1:]), m[1])
	default:
		t.add(e, Crash, Wreck, who, "", "✗ "+clause(x), "✗ error")
	}
}

func (t *teller) fault(e sim.Entry) {
	who, x := participant(e.Actor), e.Explain
	switch {
	case strings.HasPrefix(x, "armed: "):
		kind := strings.Fields(x)[1]
		t.add(e, Fault, Note, who, "", "⚑ armed: "+kind+" at "+e.Checkpoint, "⚑ "+kind)
	case strings.Contains(x, " stalls at "):
		t.add(e, Stall, Note, who, "", "⏸ stalls at "+e.Checkpoint+" (a long pause)", "⏸ stalls")
	case strings.Contains(x, " resumes at "):
		t.add(e, Stall, Note, who, "", "▶ resumes, unaware of the time that passed", "▶ resumes")
	case strings.Contains(x, "twice"):
		t.add(e, Fault, Note, who, "", "⚑ will hand out the next delivery twice", "⚑ next delivery twice")
	case strings.Contains(x, "is down"):
		t.add(e, Fault, Note, who, "", "✗ down: publishes and deliveries fail", "✗ down")
	case strings.Contains(x, "back up"):
		t.add(e, Fault, Note, who, "", "back up", "up")
	case e.Actor == "postgres":
		t.add(e, Fault, Wreck, who, "", "✗ stops at once, as on a power cut", "✗ stops")
	default:
		t.add(e, Fault, Note, who, "", clause(said(e)), "fault")
	}
}

func (t *teller) checkpoint(i int, e sim.Entry) {
	who := participant(e.Actor)
	n := len(e.MessageIDs)
	batch := ""
	if n > 1 {
		batch = fmt.Sprintf(" (batch of %d)", n)
	}
	switch e.Checkpoint {
	case "api.begin", "naive.begin":
		t.add(e, Begin, Arrow, who, PostgreSQL, "BEGIN", "")
	case "api.inserted":
		if t.capture {
			t.add(e, Insert, Arrow, who, PostgreSQL, "UPDATE payment + INSERT outbox row"+batch, "UPDATE+INSERT v2")
		} else {
			t.add(e, Insert, Arrow, who, PostgreSQL, "INSERT payment + outbox row"+batch, "INSERT payment+outbox")
		}
	case "naive.inserted":
		t.add(e, Insert, Arrow, who, PostgreSQL, "INSERT payment (no outbox)", "INSERT payment")
	case "api.committed", "naive.committed":
		t.committed = true
		t.add(e, Commit, Arrow, who, PostgreSQL, "COMMIT", "")
	case "api.replayed":
		t.add(e, Replayed, Arrow, who, PostgreSQL, "Idempotency-Key found: nothing new", "key found")
	case "api.resolved":
		t.committed = true
		t.add(e, Replayed, Arrow, who, PostgreSQL, "idempotency record: it did commit", "record found")
	case "naive.published":
		if t.committed {
			t.add(e, Publish, Arrow, who, Broker, "publish, after COMMIT", "publish")
		} else {
			t.add(e, Publish, Arrow, who, Broker, "publish, before COMMIT", "publish")
		}
	case "relay.claimed":
		t.claim(e)
	case "relay.published":
		n := t.attempt[e.Actor]
		t.add(e, Publish, Arrow, who, Broker, fmt.Sprintf("publish (attempt %d)", n), fmt.Sprintf("publish, attempt %d", n))
	case "relay.marked":
		t.leased = false
		if e.Rows == 0 {
			t.add(e, Mark, Arrow, who, PostgreSQL, "mark published: 0 rows", "mark: 0 rows")
		} else {
			t.add(e, Mark, Arrow, who, PostgreSQL, "mark published"+batch, "mark published")
		}
	case "relay.retry_scheduled":
		t.leased = false
		att, next := fmt.Sprint(t.attempt[e.Actor]), ""
		if a, ok := args(e, fmtRetry); ok {
			att, next = a[0], " at "+clockTime(a[1])
		}
		t.add(e, PublishFailed, Lost, who, Broker, "publish fails (attempt "+att+")", "publish ✗")
		t.add(e, RetryScheduled, Arrow, who, PostgreSQL, "schedule the retry"+next, "retry"+next)
	case "relay.dead_lettered":
		t.leased = false
		att, of := fmt.Sprint(t.attempt[e.Actor]), ""
		if a, ok := args(e, fmtDeadLetter); ok {
			att, of = a[0], " of "+a[1]
		}
		t.add(e, PublishFailed, Lost, who, Broker, "publish fails (attempt "+att+of+")", "publish ✗")
		t.add(e, DeadLettered, Arrow, who, PostgreSQL, "dead-letter it: never claimed again", "dead-letter it")
	case "relay.lease_lost":
		t.add(e, LeaseLost, Note, who, "", "lease lost: another worker holds the row now, nothing written", "lease lost: nothing written")
	case "broker.delivered":
		t.deliver(i, e)
	case "consumer.inbox_inserted":
		switch {
		case strings.HasPrefix(e.Statement, "find_"):
			t.add(e, InboxInsert, Arrow, who, PostgreSQL, fmt.Sprintf("SELECT earlier effects: %d found", e.Rows), fmt.Sprintf("SELECT: %d", e.Rows))
		case n > 1:
			t.add(e, InboxInsert, Arrow, who, PostgreSQL, "inbox INSERT"+batch, "inbox")
		case e.Rows == 0:
			t.add(e, InboxInsert, Arrow, who, PostgreSQL, "inbox INSERT: 0 rows, seen before", "inbox: 0 rows (seen)")
		default:
			t.add(e, InboxInsert, Arrow, who, PostgreSQL, "inbox INSERT: new", "inbox: new")
		}
	case "consumer.duplicate":
		t.add(e, Duplicate, Note, who, "", "duplicate: ignored, no second effect", "duplicate: ignored")
	case "consumer.version_gap":
		if a, ok := args(e, fmtGap); ok {
			t.add(e, VersionGap, Arrow, who, PostgreSQL, "ROLLBACK: version gap (want "+a[1]+", got "+a[2]+")", "ROLLBACK: version gap")
			t.add(e, Nack, Reply, who, Broker, "NACK: deliver it again later", "NACK")
		} else if a, ok := args(e, fmtBehind); ok {
			t.add(e, VersionGap, Arrow, who, PostgreSQL, "ROLLBACK: version "+a[1]+" is old", "ROLLBACK: old")
			t.add(e, Nack, Reply, who, Broker, "reject: to dead letters", "reject")
		} else {
			t.add(e, VersionGap, Arrow, who, PostgreSQL, "ROLLBACK: version gap", "ROLLBACK: gap")
		}
	case "consumer.effect_applied":
		label, short := "effect", "effect"
		if e.Statement != "" {
			label, short = "effect: "+e.Statement, "effect: "+strings.TrimPrefix(e.Statement, "insert_")
		}
		t.add(e, Effect, Arrow, who, PostgreSQL, label+batch, short)
	case "consumer.committed":
		t.add(e, Commit, Arrow, who, PostgreSQL, "COMMIT", "")
	case "consumer.acked":
		if e.Statement == "commit" { // the duplicate's path commits, then ACKs
			t.add(e, Commit, Arrow, who, PostgreSQL, "COMMIT", "")
		}
		if _, late := args(e, fmtLateAck); late {
			t.add(e, Ack, Reply, who, Broker, "ACK, too late: handed out again", "ACK (late)")
		} else {
			t.add(e, Ack, Reply, who, Broker, "ACK"+batch, "ACK")
		}
	default:
		t.add(e, Step(e.Checkpoint), Note, who, "", clause(said(e)), e.Checkpoint)
	}
}

func (t *teller) claim(e sim.Entry) {
	t.claims++
	t.attempt[e.Actor] = t.claims
	who := participant(e.Actor)
	again := t.leased
	t.leased = true
	switch a, ok := args(e, fmtLeaseExpired); {
	case ok && again && a[2] != "0":
		t.add(e, Claim, Arrow, who, PostgreSQL, "reclaim: the lease expired, new lease until "+clockTime(a[1]), "reclaim (lease expired)")
		return
	case ok:
		t.add(e, Claim, Arrow, who, PostgreSQL, "claim: lease until "+clockTime(a[1]), "claim, lease "+clockTime(a[1]))
		return
	}
	if a, ok := args(e, fmtLease); ok {
		t.add(e, Claim, Arrow, who, PostgreSQL, "claim: lease until "+clockTime(a[1]), "claim, lease "+clockTime(a[1]))
		return
	}
	if _, ok := args(e, fmtLeaseHeld); ok {
		t.add(e, Claim, Arrow, who, PostgreSQL, "claim: FOR UPDATE, transaction left open", "claim (tx open)")
		return
	}
	t.add(e, Claim, Arrow, who, PostgreSQL, "claim", "")
}

func (t *teller) deliver(i int, e sim.Entry) {
	to, sub := t.target[i], t.sub[i]
	t.delivered[sub]++
	k := t.delivered[sub]
	switch {
	case e.Delivery > 1:
		t.add(e, Deliver, Arrow, Broker, to, fmt.Sprintf("redeliver (delivery %d)", e.Delivery), fmt.Sprintf("redeliver, delivery %d", e.Delivery))
	case k > 1:
		t.add(e, Deliver, Arrow, Broker, to, "deliver again: published again, same id", "deliver again")
	default:
		t.add(e, Deliver, Arrow, Broker, to, "deliver (delivery 1)", "deliver")
	}
}
