package story

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
)

// Step says what one event of a story is.
type Step string

// The steps, roughly in the order a message meets them.
const (
	Request        Step = "request"         // client → writer: an HTTP request
	Begin          Step = "begin"           // writer → PostgreSQL
	Insert         Step = "insert"          // writer → PostgreSQL: payment (+ outbox row)
	Commit         Step = "commit"          // anyone → PostgreSQL
	CommitFailed   Step = "commit_failed"   // the COMMIT failed or its reply was lost
	Replayed       Step = "replayed"        // the Idempotency-Key was found
	Answer         Step = "answer"          // writer → client
	Claim          Step = "claim"           // relay → PostgreSQL: a lease
	Receive        Step = "receive"         // PostgreSQL → CDC relay: inserts streamed from its slot
	Publish        Step = "publish"         // relay or naive writer → broker
	PublishFailed  Step = "publish_failed"  // the broker refused or was down
	PublishDropped Step = "publish_dropped" // the broker acked a duplicate inside its dedup window and dropped it
	Mark           Step = "mark"            // relay → PostgreSQL: published_at
	Confirm        Step = "confirm"         // CDC relay → PostgreSQL: the LSN confirmed to its slot
	RetryScheduled Step = "retry_scheduled" // relay → PostgreSQL: next_attempt_at
	DeadLettered   Step = "dead_lettered"   // relay → PostgreSQL: dead_lettered_at
	LeaseLost      Step = "lease_lost"      // a mark found another worker's lease
	Deliver        Step = "deliver"         // broker → consumer (first, again, or a redelivery)
	InboxInsert    Step = "inbox_insert"    // consumer → PostgreSQL: the marker (or the wrong way's SELECT)
	Duplicate      Step = "duplicate"       // the inbox said: seen before, no effect
	Effect         Step = "effect"          // consumer → PostgreSQL: the business effect
	VersionGap     Step = "version_gap"     // consumer refused an out-of-order version
	Parked         Step = "parked"          // consumer kept an early version in its table (versions: park)
	Ack            Step = "ack"             // consumer → broker
	Nack           Step = "nack"            // consumer → broker: give it back
	Crash          Step = "crash"           // a process died
	Restart        Step = "restart"         // a process came back
	Stall          Step = "stall"           // a process froze, or came back from it
	Blocked        Step = "blocked"         // waits inside PostgreSQL for a row lock
	Fault          Step = "fault"           // armed or injected: broker down, duplicate next, PostgreSQL stop
	Operator       Step = "operator"        // requeue, retention
	Clock          Step = "clock"           // virtual time moved
	Charge         Step = "charge"          // consumer or sender → provider: POST /charges, and its answer (S19)
	ChargeSent     Step = "charge_sent"     // sender → PostgreSQL: the second outbox's row marked sent
)

// Shape is how an event is drawn.
type Shape int

// The shapes.
const (
	Arrow   Shape = iota // From → To, solid
	Reply                // From → To, dashed: answers and ACKs
	Lost                 // From → To, ending in a cross: it failed
	Note                 // beside From
	Wreck                // a crash, on From's lifeline
	Divider              // across every lifeline: the clock
)

// Event is one arrow or note of a story.
type Event struct {
	Seq   int       // the timeline entry it comes from
	At    time.Time // virtual time
	Step  Step
	Shape Shape
	From  string // participant
	To    string // participant; "" for a note, a crash or a divider
	Label Text   // what happened, in a few words
	Short Text   // the same in fewer, for narrow terminals
}

// Tally is what one consumer made of the message.
type Tally struct {
	Consumer   string
	Workers    []string // the actors that took its deliveries
	Deliveries int
	Effects    int // effects committed or not: a crash before COMMIT rolls one back (see Story.Events)
	Duplicates int // deliveries its inbox ignored
	Refused    int // deliveries refused for their aggregate version (a gap)
	Parked     int // deliveries parked ahead of their version (versions: park)
}

// Story is one message's life in one pipeline.
type Story struct {
	Message      string // full event id
	Payment      string // full payment id ("" if none was seen)
	Pipeline     string // outbox or naive
	Index, Total int    // the message's number among the run's messages (1-based), and how many there are
	Participants []string
	Events       []Event
	Consumers    []Tally
	Outcome      []Text // what came of it, one sentence each
}

// The participants' names, as the diagram shows them.
const (
	Client     = sim.ActorClient
	PostgreSQL = "PostgreSQL"
	Broker     = "broker"
	// Provider is the card provider a consumer charges over HTTP (S19):
	// a third party, drawn last, past the consumers.
	Provider = "provider"
)

// MessageRef is one message of a run.
type MessageRef struct {
	ID, Payment string
}

// Short is an id as the simulator shows it: its last 8 hex digits.
func Short(id string) string {
	if len(id) <= 8 {
		return id
	}
	return "…" + id[len(id)-8:]
}

// Pipelines names the pipelines a timeline holds, naive first.
func Pipelines(timeline []sim.Entry) []string {
	var out []string
	for _, p := range scenes.AllPipelines() {
		if slices.ContainsFunc(timeline, func(e sim.Entry) bool { return e.Pipeline == p }) {
			out = append(out, p)
		}
	}
	return out
}

// pipelineOf resolves a pipeline choice: "" is outbox when the run has it.
func pipelineOf(timeline []sim.Entry, want string) (string, error) {
	have := Pipelines(timeline)
	if len(have) == 0 {
		return "", badinput.New("the run has no pipeline entries: nothing happened to any message")
	}
	if want == "" {
		return have[len(have)-1], nil
	}
	if !slices.Contains(have, want) {
		return "", badinput.Errorf("pipeline %q: the run has %s", want, strings.Join(have, " and "))
	}
	return want, nil
}

// Messages lists a pipeline's messages in order of first appearance.
func Messages(timeline []sim.Entry, pipeline string) []MessageRef {
	var out []MessageRef
	seen := map[string]int{}
	for _, e := range timeline {
		if e.Pipeline != pipeline {
			continue
		}
		for _, id := range e.MessageIDs {
			i, ok := seen[id]
			if !ok {
				i = len(out)
				seen[id] = i
				out = append(out, MessageRef{ID: id})
			}
			if out[i].Payment == "" && e.PaymentID != "" && len(e.MessageIDs) == 1 {
				out[i].Payment = e.PaymentID
			}
		}
	}
	return out
}

// Choose finds the message a choice names: its number N (1-based, in order
// of first appearance), its full id, a prefix of it, or its last hex digits
// as the simulator shows them (…deb1bbf2).
func Choose(msgs []MessageRef, choice string) (int, error) {
	c := strings.TrimSpace(choice)
	c = strings.TrimPrefix(strings.TrimPrefix(c, "…"), "...")
	if c == "" {
		return 0, badinput.New("which message? " + listing(msgs))
	}
	if isIndex(c) {
		var n int
		fmt.Sscan(c, &n)
		if n < 1 || n > len(msgs) {
			return 0, badinput.Errorf("message %s: %s", c, listing(msgs))
		}
		return n - 1, nil
	}
	c = strings.ToLower(c)
	var hits []int
	for i, m := range msgs {
		if m.ID == c {
			return i, nil
		}
		if strings.HasPrefix(m.ID, c) || strings.HasSuffix(m.ID, c) {
			hits = append(hits, i)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return 0, badinput.Errorf("message %s: no message id starts or ends so; %s", choice, listing(msgs))
	}
	var names []string
	for _, i := range hits {
		names = append(names, fmt.Sprintf("%d %s", i+1, msgs[i].ID))
	}
	return 0, badinput.Errorf("message %s is ambiguous: it names %s; give more digits or the number", choice, strings.Join(names, ", "))
}

// isIndex: a short run of digits is a message number; 8 digits or more are
// an id's digits.
func isIndex(s string) bool {
	if len(s) >= 8 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func listing(msgs []MessageRef) string {
	if len(msgs) == 0 {
		return "the run has no messages"
	}
	parts := make([]string, len(msgs))
	for i, m := range msgs {
		parts[i] = fmt.Sprintf("%d %s", i+1, Short(m.ID))
		if m.Payment != "" {
			parts[i] += fmt.Sprintf(" (payment %s)", Short(m.Payment))
		}
	}
	noun := "messages"
	if len(msgs) == 1 {
		noun = "message"
	}
	return fmt.Sprintf("the run has %d %s: %s", len(msgs), noun, strings.Join(parts, ", "))
}

// Build tells the story of one message of a timeline. pipeline is naive or
// outbox ("" picks outbox when the run has it); message is a choice as
// Choose takes it. A choice that names nothing is bad input (a *badinput.Error).
func Build(timeline []sim.Entry, pipeline string, message string) (Story, error) {
	p, err := pipelineOf(timeline, pipeline)
	if err != nil {
		return Story{}, err
	}
	msgs := Messages(timeline, p)
	i, err := Choose(msgs, message)
	if err != nil {
		return Story{}, err
	}
	s := Story{Message: msgs[i].ID, Payment: msgs[i].Payment, Pipeline: p, Index: i + 1, Total: len(msgs)}
	b := newBuilder(timeline, p, s.Message)
	s.Events = b.events()
	s.Participants = participants(s.Events)
	s.Consumers = tallies(s.Events)
	s.Outcome = outcome(s)
	return s, nil
}
