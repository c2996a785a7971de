package engine

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/outboxlab/outboxlab/engine/enginetest"
)

func testMessage(key string, version int64) Message {
	env := Envelope{ID: newEventID(), AggregateType: AggregatePayment, AggregateID: key, AggregateVersion: version,
		Type: EventPaymentCreated, SchemaVersion: 1, Payload: json.RawMessage(`{}`)}
	return newMessage(env, TopicPayments, "test")
}

func TestBrokerAtLeastOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := enginetest.NewClock()
	b := NewBroker(BrokerConfig{Clock: clock, AckTimeout: 10 * time.Second})
	if err := b.Subscribe(TopicPayments, "s"); err != nil {
		t.Fatal(err)
	}
	m := testMessage("a", 1)
	if err := b.Publish(ctx, m); err != nil {
		t.Fatal(err)
	}
	d1, ok, err := b.Receive(ctx, "s")
	if err != nil || !ok || d1.Count != 1 || d1.ID != m.ID || d1.Metadata["published_by"] != "test" {
		t.Fatalf("first delivery %+v %v %v", d1, ok, err)
	}
	if _, ok, _ := b.Receive(ctx, "s"); ok {
		t.Fatal("an in-flight message was handed out again before its ack timeout")
	}
	clock.Advance(10 * time.Second)
	d2, ok, _ := b.Receive(ctx, "s")
	if !ok || d2.Count != 2 || d2.ID != m.ID {
		t.Fatalf("redelivery %+v", d2)
	}
	mustErrIs(t, b.Ack(ctx, d1), ErrStaleAck)
	if err := b.Ack(ctx, d2); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	if _, ok, _ := b.Receive(ctx, "s"); ok {
		t.Fatal("an acked message came back")
	}
	st := b.Stats()
	if st.Published != 1 || st.Delivered != 2 || st.Redelivered != 1 || st.Acked != 1 || st.StaleAcks != 1 || st.DeliveriesByID["s"][m.ID] != 2 {
		t.Errorf("stats %+v", st)
	}
	if got := len(b.Log()); got != 5 { // publish, deliver, deliver, stale_ack, ack
		t.Errorf("log has %d entries, want 5", got)
	}
}

func TestBrokerDownAndDuplicate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := NewBroker(BrokerConfig{Clock: enginetest.NewClock()})
	_ = b.Subscribe(TopicPayments, "s")
	b.SetDown(true)
	mustErrIs(t, b.Publish(ctx, testMessage("a", 1)), ErrBrokerDown)
	_, _, err := b.Receive(ctx, "s")
	mustErrIs(t, err, ErrBrokerDown)
	b.SetDown(false)
	_ = b.Publish(ctx, testMessage("a", 1))
	b.DuplicateNext()
	d1, _, _ := b.Receive(ctx, "s")
	d2, ok, _ := b.Receive(ctx, "s")
	if !ok || d2.ID != d1.ID || d2.Count != 2 || d2.Tag == d1.Tag {
		t.Fatalf("duplicate %+v of %+v", d2, d1)
	}
	if err := b.Ack(ctx, d1); err != nil {
		t.Fatal(err)
	}
	if err := b.Ack(ctx, d2); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Receive(ctx, "nobody"); err == nil {
		t.Error("receive on an unknown subscription succeeded")
	}
}

// With OrderByKey one aggregate has one delivery in flight; others go on.
func TestBrokerOrderByKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := NewBroker(BrokerConfig{Clock: enginetest.NewClock(), OrderByKey: true})
	_ = b.Subscribe(TopicPayments, "s")
	a1, a2, c1 := testMessage("a", 1), testMessage("a", 2), testMessage("c", 1)
	for _, m := range []Message{a1, a2, c1} {
		_ = b.Publish(ctx, m)
	}
	d, _, _ := b.Receive(ctx, "s")
	next, _, _ := b.Receive(ctx, "s")
	if d.ID != a1.ID || next.ID != c1.ID {
		t.Fatalf("got %s then %s, want a1 then c1 (a2 waits for a1)", d.ID, next.ID)
	}
	if _, ok, _ := b.Receive(ctx, "s"); ok {
		t.Fatal("a2 delivered while a1 is in flight")
	}
	_ = b.Ack(ctx, d)
	if d, ok, _ := b.Receive(ctx, "s"); !ok || d.ID != a2.ID {
		t.Fatalf("a2 not delivered after a1 was acked")
	}
}

// The log keeps its newest LogLimit entries, oldest first, across the
// blocks it is stored in.
func TestBrokerLogRing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const limit = logBlock + 5
	b := NewBroker(BrokerConfig{Clock: enginetest.NewClock(), LogLimit: limit})
	_ = b.Subscribe(TopicPayments, "s")
	const total = 2*logBlock + 7
	for range total {
		_ = b.Publish(ctx, testMessage("a", 1))
	}
	log := b.Log()
	if len(log) != limit {
		t.Fatalf("log has %d entries, want %d", len(log), limit)
	}
	for i, e := range log {
		if want := uint64(total - limit + i + 1); e.Seq != want {
			t.Fatalf("entry %d has seq %d, want %d", i, e.Seq, want)
		}
	}
}

// Expired deliveries come back in publish order whatever order their
// deadlines and settlements came in; settled ones never come back.
func TestBrokerRedeliveryOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := enginetest.NewClock()
	b := NewBroker(BrokerConfig{Clock: clock, AckTimeout: 10 * time.Second})
	_ = b.Subscribe(TopicPayments, "s")
	var msgs []Message
	for i := range 8 {
		m := testMessage(string(rune('a'+i)), 1)
		msgs = append(msgs, m)
		_ = b.Publish(ctx, m)
	}
	var ds []Delivery
	for i := 7; i >= 0; i-- { // deadlines a second apart every two deliveries
		d, ok, _ := b.Receive(ctx, "s")
		if !ok {
			t.Fatal("nothing to receive")
		}
		ds = append(ds, d)
		if i%2 == 0 {
			clock.Advance(time.Second)
		}
	}
	_ = b.Ack(ctx, ds[2])
	_ = b.Ack(ctx, ds[5])
	if due, ok := b.NextDue(); !ok || !due.Equal(ds[0].DeliveredAt.Add(10*time.Second)) {
		t.Fatalf("next due %v %v, want the first delivery's deadline", due, ok)
	}
	clock.Advance(time.Minute)
	var got []int
	for {
		d, ok, _ := b.Receive(ctx, "s")
		if !ok {
			break
		}
		if d.Count != 2 {
			t.Fatalf("delivery %+v, want a redelivery", d)
		}
		for i, m := range msgs {
			if m.ID == d.ID {
				got = append(got, i)
			}
		}
	}
	if want := []int{0, 1, 3, 4, 6, 7}; !slices.Equal(got, want) {
		t.Fatalf("redelivered %v, want %v", got, want)
	}
}

// The in-process broker's dedup window, on its clock (JetStream's
// Duplicates window, for the step-by-step simulator): the relay that
// republishes after a crash inside the window gets a duplicate ack and says
// so, nothing is delivered twice; a republish after the window is accepted
// and delivered again, and the inbox stops its effect.
func TestBrokerDedupWindow(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.broker = NewBroker(BrokerConfig{Clock: b.clock, AckTimeout: 30 * time.Second, DedupWindow: 2 * time.Minute})
	if err := b.broker.Subscribe(TopicPayments, "accounting"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	id := b.seed(t, 1)[0]
	_, err := b.relay(t, "relay-1", faultAt(RelayPublished, ErrCrash)).Step(ctx)
	mustErrIs(t, err, ErrCrash)
	b.clock.Advance(31 * time.Second)
	var said []string
	hook := func(_ context.Context, ev Event) error {
		if ev.Checkpoint == RelayPublished {
			said = append(said, ev.Detail.String())
		}
		return nil
	}
	res := must[RelayStepResult](t)(b.relay(t, "relay-2", hook).Step(ctx))
	if res.Published != 1 || res.Marked != 1 || res.DedupDropped != 1 {
		t.Fatalf("relay-2 inside the window: %+v", res)
	}
	if len(said) != 1 || !strings.Contains(said[0], "acked as a duplicate and dropped") {
		t.Errorf("relay-2 said %q", said)
	}
	if st := b.broker.Stats(); st.PublishesByID[id] != 1 || st.DedupDropped != 1 {
		t.Fatalf("accepted %d, dropped %d; want 1 and 1", st.PublishesByID[id], st.DedupDropped)
	}
	c := b.consumer(t, "accounting", StrategyInbox, nil)
	if r := must[ConsumeResult](t)(c.Step(ctx)); r.Outcome != OutcomeApplied {
		t.Fatalf("first: %+v", r)
	}
	if r := must[ConsumeResult](t)(c.Step(ctx)); r.Outcome != OutcomeIdle {
		t.Fatalf("inside the window the broker delivered again: %+v", r)
	}
	env := must[Envelope](t)(b.envelope(t, id))
	b.clock.Advance(2 * time.Minute) // the window counts from the accepted publish, 31 s ago
	if dup := must[bool](t)(b.broker.PublishDedup(ctx, Message{Envelope: env, Topic: TopicPayments})); dup {
		t.Fatal("after the window: dropped, want accepted")
	}
	if r := must[ConsumeResult](t)(c.Step(ctx)); r.Outcome != OutcomeDuplicate || r.MessageID != id {
		t.Fatalf("after the window: %+v, want the inbox to call it a duplicate", r)
	}
	if n := b.count(t, "SELECT count(*) FROM ledger_entries WHERE message_id = $1", id); n != 1 {
		t.Errorf("%d ledger entries, want 1", n)
	}
}

// A long run's dedup window holds the ids still inside it, not every id
// the broker ever accepted.
func TestBrokerDedupWindowForgetsOldIDs(t *testing.T) {
	t.Parallel()
	clock := enginetest.NewClock()
	br := NewBroker(BrokerConfig{Clock: clock, DedupWindow: time.Minute})
	ctx := context.Background()
	publish := func() {
		if err := br.Publish(ctx, Message{Envelope: Envelope{ID: uuid.New()}, Topic: TopicPayments}); err != nil {
			t.Fatal(err)
		}
	}
	for range 3000 {
		publish()
	}
	clock.Advance(2 * time.Minute)
	for range 1100 {
		publish()
	}
	if n := len(br.accepted); n > 2100 {
		t.Errorf("the window remembers %d ids after 4100 publishes, 1100 of them inside it", n)
	}
}
