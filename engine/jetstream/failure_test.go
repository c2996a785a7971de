package jetstream

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/internal/testrun"
)

// S25 #4, S13 on JetStream: the relay died after JetStream stored the
// message and before marking it. Another relay republishes the same id
// after the lease expires; inside the dedup window JetStream acks it as a
// duplicate and stores nothing, and the row is marked published.
func TestCrashAfterPublishIsADuplicateAckInsideTheWindow(t *testing.T) {
	t.Parallel()
	b := setup(t, Config{CountByID: true})
	ctx := context.Background()
	id := b.seed(t, 1)[0]
	_, err := b.relay(t, "relay-1", faultAt(engine.RelayPublished, engine.ErrCrash)).Step(ctx)
	if !errors.Is(err, engine.ErrCrash) {
		t.Fatalf("relay-1: %v, want a crash", err)
	}
	b.clock.Advance(31 * time.Second) // the lease, on the engine's clock
	res := must[engine.RelayStepResult](t)(b.relay(t, "relay-2", nil).Step(ctx))
	if res.Published != 1 || res.Marked != 1 || res.Recovered != 1 || res.DedupDropped != 1 {
		t.Fatalf("relay-2: %+v, want its publish reported as a duplicate ack", res)
	}
	if st := b.broker.Stats(); st.PublishesByID[id] != 1 || st.DuplicatesByID[id] != 1 {
		t.Fatalf("stored %d, acked as duplicate %d; want 1 and 1", st.PublishesByID[id], st.DuplicatesByID[id])
	}
	if n := b.count(t, "SELECT attempts FROM outbox_messages WHERE id = $1 AND published_at IS NOT NULL", id); n != 2 {
		t.Errorf("attempts %d, want 2 and published", n)
	}
	c := b.consumer(t, "accounting", nil)
	if res := next(t, c); res.Outcome != engine.OutcomeApplied || res.MessageID != id {
		t.Fatalf("first: %+v", res)
	}
	if res := idle(t, c); res.Outcome != engine.OutcomeIdle {
		t.Fatalf("JetStream delivered the dropped duplicate: %+v", res)
	}
	if n := b.count(t, "SELECT count(*) FROM ledger_entries WHERE message_id = $1", id); n != 1 {
		t.Errorf("%d ledger entries, want 1", n)
	}
}

// The dedup window is bounded in time; the inbox is not. A republish inside
// the window is acked as a duplicate; the same id after the window passes
// is stored again and delivered again, and the inbox stops its effect.
func TestDedupWindowPassesAndTheInboxStopsIt(t *testing.T) {
	t.Parallel()
	// Long enough that the relay's step, the consumer's delivery and the
	// republish fit inside it on a loaded CI machine (200ms did not: the
	// republish was stored, the window already past).
	const window = 2 * time.Second
	b := setup(t, Config{Duplicates: window, CountByID: true})
	ctx := context.Background()
	id := b.seed(t, 1)[0]
	published := time.Now()
	if res := must[engine.RelayStepResult](t)(b.relay(t, "relay-1", nil).Step(ctx)); res.Marked != 1 {
		t.Fatalf("relay: %+v", res)
	}
	c := b.consumer(t, "accounting", nil)
	if res := next(t, c); res.Outcome != engine.OutcomeApplied {
		t.Fatalf("first delivery: %+v", res)
	}
	msg := engine.Message{Envelope: envelope(t, b, id), Topic: engine.TopicPayments}
	if ack := must[PubAck](t)(b.broker.PublishAck(ctx, msg)); !ack.Duplicate {
		t.Fatalf("republish %v after the first publish, inside the %v window: %+v, want a duplicate ack", time.Since(published).Round(time.Millisecond), window, ack)
	}
	if res := idle(t, c); res.Outcome != engine.OutcomeIdle {
		t.Fatalf("inside the window JetStream delivered again: %+v", res)
	}
	// A deliberate wait, not a poll (a republish to ask would be stored):
	// the server forgets ids on a timer that runs at most every window (and
	// 50ms at least), and twice the window is past it.
	time.Sleep(time.Until(published.Add(2 * window)))
	if ack := must[PubAck](t)(b.broker.PublishAck(ctx, msg)); ack.Duplicate {
		t.Fatalf("republish after the window: %+v, want stored", ack)
	}
	res := next(t, c)
	if res.Outcome != engine.OutcomeDuplicate || res.MessageID != id || res.Delivery != 1 {
		t.Fatalf("after the window: %+v, want a first delivery of the same id that the inbox calls a duplicate", res)
	}
	if n := b.count(t, "SELECT count(*) FROM ledger_entries WHERE message_id = $1", id); n != 1 {
		t.Errorf("%d ledger entries, want 1", n)
	}
	if st := b.broker.Stats(); st.PublishesByID[id] != 2 || st.DuplicatesByID[id] != 1 {
		t.Errorf("stored %d, duplicates %d; want 2 and 1", st.PublishesByID[id], st.DuplicatesByID[id])
	}
}

func envelope(t *testing.T, b *bundle, id uuid.UUID) engine.Envelope {
	t.Helper()
	env := engine.Envelope{ID: id}
	err := b.pool.QueryRow(context.Background(), `SELECT aggregate_type, aggregate_id, aggregate_version, event_type,
		schema_version, payload, occurred_at FROM outbox_messages WHERE id = $1`, id).
		Scan(&env.AggregateType, &env.AggregateID, &env.AggregateVersion, &env.Type, &env.SchemaVersion, &env.Payload, &env.OccurredAt)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// S25 #6, S17 on JetStream: a consumer crashes after COMMIT and before ACK
// (the redelivery after AckWait finds the marker: a duplicate, no second
// entry), or before COMMIT (marker and entry rolled back: the redelivery
// applies it once). The redelivery count is JetStream's.
func TestCrashAroundAckRedeliveredAfterAckWait(t *testing.T) {
	t.Parallel()
	const ackWait = 300 * time.Millisecond
	cases := []struct {
		name        string
		at          engine.Checkpoint
		afterCrash  int64
		redelivered engine.Outcome
	}{
		{"after commit before ack", engine.ConsumerCommitted, 1, engine.OutcomeDuplicate},
		{"before commit", engine.ConsumerEffectApplied, 0, engine.OutcomeApplied},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, Config{AckWait: ackWait})
			ctx := context.Background()
			id := b.seed(t, 1)[0]
			must[engine.RelayStepResult](t)(b.relay(t, "relay-1", nil).Step(ctx))
			crashing := b.consumer(t, "accounting", faultAt(tc.at, engine.ErrCrash))
			var err error
			var pulled time.Time // before the pull that took the delivery: its AckWait runs from later
			testrun.Eventually(t, 2*time.Second, fmt.Sprintf("the consumer stopped at %s", tc.at), func() bool {
				var res engine.ConsumeResult
				pulled = time.Now()
				if res, err = crashing.Step(ctx); err == nil && res.Outcome != engine.OutcomeIdle {
					t.Fatalf("handled without reaching %s: %+v", tc.at, res)
				}
				return err != nil
			})
			if !errors.Is(err, engine.ErrCrash) {
				t.Fatalf("consumer: %v, want a crash", err)
			}
			if n := b.count(t, "SELECT count(*) FROM ledger_entries"); n != tc.afterCrash {
				t.Fatalf("ledger entries after the crash %d, want %d", n, tc.afterCrash)
			}
			if _, unacked := b.pending(t, "accounting"); unacked != 1 {
				t.Fatalf("unacked %d, want the crashed delivery still with JetStream", unacked)
			}
			restarted := b.consumer(t, "accounting", nil)
			var res engine.ConsumeResult
			testrun.Eventually(t, 10*ackWait-time.Since(pulled), "a redelivery", func() bool {
				res = must[engine.ConsumeResult](t)(restarted.Step(ctx))
				return res.Outcome != engine.OutcomeIdle
			})
			if waited := time.Since(pulled); waited < ackWait {
				t.Errorf("redelivered %s after the pull, before AckWait %s", waited, ackWait)
			}
			if res.Outcome != tc.redelivered || res.Delivery != 2 || res.MessageID != id {
				t.Fatalf("redelivery %+v, want %v of delivery 2", res, tc.redelivered)
			}
			if n := b.count(t, "SELECT count(*) FROM ledger_entries"); n != 1 {
				t.Errorf("ledger entries %d, want 1", n)
			}
			if waiting, unacked := b.pending(t, "accounting"); waiting != 0 || unacked != 0 {
				t.Errorf("left with JetStream: %d waiting, %d unacked", waiting, unacked)
			}
		})
	}
}

// S25 #5, S18 on JetStream: copies of one message out at once — each
// AckWait that passes unacknowledged makes JetStream hand it out again —
// handled concurrently: exactly one effect, every other copy an expected
// duplicate, every copy acknowledged.
func TestConcurrentRedeliveriesGiveOneEffect(t *testing.T) {
	t.Parallel()
	const ackWait, copies = 150 * time.Millisecond, 4
	b := setup(t, Config{AckWait: ackWait})
	ctx := context.Background()
	id := b.seed(t, 1)[0]
	must[engine.RelayStepResult](t)(b.relay(t, "relay-1", nil).Step(ctx))
	var ds []engine.Delivery
	testrun.Eventually(t, 20*ackWait*copies, fmt.Sprintf("%d copies handed out", copies), func() bool {
		for len(ds) < copies {
			d, ok, err := b.broker.Receive(ctx, "accounting")
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				return false
			}
			ds = append(ds, d)
		}
		return true
	})
	results := make([]engine.ConsumeResult, copies)
	errs := make([]error, copies)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, d := range ds {
		if d.ID != id || d.Count != i+1 {
			t.Fatalf("copy %d: %s delivery %d", i, d.ID, d.Count)
		}
		c := b.consumer(t, "accounting", nil)
		wg.Go(func() {
			<-start
			results[i], errs[i] = c.Handle(ctx, d)
		})
	}
	close(start)
	wg.Wait()
	applied, dups := 0, 0
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("copy %d: %v", i, errs[i])
		}
		switch r.Outcome {
		case engine.OutcomeApplied:
			applied++
		case engine.OutcomeDuplicate:
			dups++
		}
	}
	if applied != 1 || dups != copies-1 {
		t.Errorf("applied %d duplicates %d, want 1 and %d", applied, dups, copies-1)
	}
	if n := b.count(t, "SELECT count(*) FROM ledger_entries WHERE message_id = $1", id); n != 1 {
		t.Errorf("%d ledger entries, want 1", n)
	}
	if st := b.broker.Stats(); st.Acked != copies {
		t.Errorf("acked %d, want every copy (%d)", st.Acked, copies)
	}
}

// S25 #7, S14 on JetStream: with the server stopped each claim raises
// attempts and persists the backoff, nothing is claimed before
// next_attempt_at; started again on its store, the connection comes back
// and the row is published and applied.
func TestServerDownRaisesAttemptsAndRespectsNextAttempt(t *testing.T) {
	t.Parallel()
	b := setup(t, Config{Timeout: 500 * time.Millisecond})
	ctx := context.Background()
	id := b.seed(t, 1)[0]
	b.server.Stop()
	r := b.relay(t, "relay-1", nil)
	for attempt := 1; attempt <= 3; attempt++ {
		before := b.clock.Now()
		res := must[engine.RelayStepResult](t)(r.Step(ctx))
		if res.Retried != 1 || res.Published != 0 {
			t.Fatalf("attempt %d: %+v", attempt, res)
		}
		var attempts int
		var next time.Time
		var lastError string
		err := b.pool.QueryRow(ctx, `SELECT attempts, next_attempt_at, last_error FROM outbox_messages WHERE id = $1`, id).
			Scan(&attempts, &next, &lastError)
		if err != nil {
			t.Fatal(err)
		}
		delay, wait := engine.RetryDelay(attempt), next.Sub(before)
		if attempts != attempt || wait < delay || wait > delay+delay/5 || !strings.Contains(lastError, "broker is down") {
			t.Fatalf("attempt %d: attempts %d, wait %s for delay %s, last_error %q", attempt, attempts, wait, delay, lastError)
		}
		b.clock.Advance(wait - time.Millisecond)
		if res := must[engine.RelayStepResult](t)(r.Step(ctx)); !res.Idle {
			t.Fatalf("attempt %d: claimed before next_attempt_at", attempt)
		}
		b.clock.Advance(time.Millisecond)
	}
	if _, err := b.consumer(t, "accounting", nil).Step(ctx); !errors.Is(err, engine.ErrBrokerDown) {
		t.Fatalf("consumer with the server down: %v, want ErrBrokerDown", err)
	}
	if err := b.server.Start(); err != nil {
		t.Fatal(err)
	}
	connected(t, b.nc)
	res := must[engine.RelayStepResult](t)(r.Step(ctx))
	if res.Published != 1 || res.Marked != 1 {
		t.Fatalf("after the outage: %+v", res)
	}
	if n := b.count(t, "SELECT attempts FROM outbox_messages WHERE id = $1 AND published_at IS NOT NULL AND last_error IS NULL", id); n != 4 {
		t.Errorf("attempts %d, want 4, published, no error", n)
	}
	if res := next(t, b.consumer(t, "accounting", nil)); res.Outcome != engine.OutcomeApplied {
		t.Errorf("consumer after the outage: %+v", res)
	}
}

// The file store keeps what JetStream acked: stop the embedded server with
// messages published (some delivered and unacknowledged, some not
// delivered), start it again on the same directory, and every message is
// applied once by each consumer, none lost.
func TestRestartOnTheSameStoreLosesNoPublishedMessage(t *testing.T) {
	t.Parallel()
	const n = 30
	b := setup(t, Config{AckWait: 300 * time.Millisecond})
	ctx := context.Background()
	ids := b.seed(t, n)
	r, marked := b.relay(t, "relay-1", nil), 0
	for res := must[engine.RelayStepResult](t)(r.Step(ctx)); !res.Idle; res = must[engine.RelayStepResult](t)(r.Step(ctx)) {
		marked += res.Marked
	}
	if marked != n {
		t.Fatalf("relay marked %d, want %d", marked, n)
	}
	acc := b.consumer(t, "accounting", nil)
	for range 10 {
		if res := next(t, acc); res.Outcome != engine.OutcomeApplied {
			t.Fatalf("before the restart: %+v", res)
		}
	}
	// Two more handed out and never acknowledged: in flight at the stop.
	for range 2 {
		if _, ok, err := b.broker.Receive(ctx, "accounting"); err != nil || !ok {
			t.Fatalf("receive: %v %v", ok, err)
		}
	}
	b.server.Stop()
	if err := b.server.Start(); err != nil {
		t.Fatal(err)
	}
	connected(t, b.nc)
	// A new broker on the same connection: what this process held in its
	// pull buffer is gone with the old one, as after a process restart.
	br := b.open(t, Config{AckWait: 300 * time.Millisecond})
	b.broker = br
	deadline := time.Now().Add(10 * time.Second)
	for _, name := range []string{"accounting", "notifications"} {
		c := b.consumer(t, name, nil)
		testrun.Awaited(t, time.Until(deadline), name+": none waiting or unacked in JetStream", func() [2]int {
			for must[engine.ConsumeResult](t)(c.Step(ctx)).Outcome != engine.OutcomeIdle { // every delivery there is handled
			}
			waiting, unacked := b.pending(t, name)
			return [2]int{waiting, unacked}
		}, func(n [2]int) bool { return n == [2]int{} })
	}
	for _, table := range []string{"ledger_entries", "notifications"} {
		if got := b.count(t, "SELECT count(DISTINCT message_id) FROM "+table+" WHERE message_id = ANY($1)", ids); got != n {
			t.Errorf("%s: %d of %d messages applied", table, got, n)
		}
		if got := b.count(t, "SELECT count(*) FROM "+table); got != n {
			t.Errorf("%s: %d entries, want %d (one each)", table, got, n)
		}
	}
}

// MaxDeliver bounds JetStream's redeliveries of a message nobody acks.
func TestMaxDeliverStopsRedelivery(t *testing.T) {
	t.Parallel()
	const ackWait = 100 * time.Millisecond
	b := setup(t, Config{AckWait: ackWait, MaxDeliver: 2})
	ctx := context.Background()
	b.seed(t, 1)
	must[engine.RelayStepResult](t)(b.relay(t, "relay-1", nil).Step(ctx))
	var counts []int
	// A window of six AckWaits, in which a third delivery would come.
	end := time.Now().Add(6 * ackWait)
	for time.Now().Before(end) {
		d, ok, err := b.broker.Receive(ctx, "accounting")
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			counts = append(counts, d.Count)
		}
		time.Sleep(10 * time.Millisecond) // pacing: a consumer asking every 10 ms through the window
	}
	if len(counts) != 2 || counts[0] != 1 || counts[1] != 2 {
		t.Errorf("deliveries %v, want [1 2] and no more", counts)
	}
}

// The batch paths a relay and a consumer take when nothing watches them:
// the relay's batch goes out with asynchronous publishes (a republish of an
// id still inside the window answered as a duplicate, every row of a batch
// scheduled for a retry while the server is down), and a batch consumer's
// ACKs reach JetStream with one flush: nothing is left unacknowledged.
func TestBatchPublishAndBatchAck(t *testing.T) {
	t.Parallel()
	b := setup(t, Config{Timeout: 500 * time.Millisecond})
	ctx := context.Background()
	ids := b.seed(t, 5)
	// One of them is in the stream already, as after a relay that died
	// after its publish.
	if ack := must[PubAck](t)(b.broker.PublishAck(ctx, engine.Message{Envelope: envelope(t, b, ids[2]), Topic: engine.TopicPayments})); ack.Duplicate {
		t.Fatal("first publish acked as a duplicate")
	}
	res := must[engine.RelayStepResult](t)(b.relay(t, "relay-1", nil).Step(ctx))
	if res.Published != 5 || res.Marked != 5 || res.DedupDropped != 1 {
		t.Fatalf("relay: %+v, want 5 published and marked, 1 of them a duplicate ack", res)
	}
	c := engine.NewConsumer(engine.ConsumerConfig{Name: "accounting", Connect: b.connect, Subscriber: b.broker, Clock: b.clock, BatchSize: 10})
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	var results []engine.ConsumeResult
	testrun.Eventually(t, 2*time.Second, "5 results", func() bool {
		results = append(results, must[[]engine.ConsumeResult](t)(c.StepBatch(ctx))...)
		return len(results) >= 5
	})
	if len(results) != 5 {
		t.Fatalf("%d results, want 5", len(results))
	}
	for _, r := range results {
		if r.Outcome != engine.OutcomeApplied || r.AckErr != nil {
			t.Errorf("%+v", r)
		}
	}
	// The flush says the server has read the acks; its consumer applies
	// them a moment later.
	testrun.Eventually(t, time.Second, "the batch's ACKs settled (none waiting, none unacked)", func() bool {
		waiting, unacked := b.pending(t, "accounting")
		return waiting == 0 && unacked == 0
	})
	if st := b.broker.Stats(); st.Acked != 5 {
		t.Errorf("acked %d, want 5", st.Acked)
	}

	more := b.seed(t, 3)
	b.server.Stop()
	res = must[engine.RelayStepResult](t)(b.relay(t, "relay-2", nil).Step(ctx))
	if res.Claimed != 3 || res.Retried != 3 || res.Published != 0 {
		t.Fatalf("relay with the server down: %+v", res)
	}
	if n := b.count(t, "SELECT count(*) FROM outbox_messages WHERE id = ANY($1) AND published_at IS NULL AND attempts = 1 AND last_error LIKE '%broker is down%'", more); n != 3 {
		t.Errorf("%d of 3 rows scheduled for a retry with the outage as their error", n)
	}
}

// The stream keeps what is still owed: once both consumers have acked, it
// holds no message (interest retention), and the dedup window still drops a
// republish of an id it took.
func TestAckedByEveryConsumerLeavesTheStream(t *testing.T) {
	t.Parallel()
	b := setup(t, Config{})
	ctx := context.Background()
	ids := b.seed(t, 3)
	if res := must[engine.RelayStepResult](t)(b.relay(t, "relay-1", nil).Step(ctx)); res.Published != 3 {
		t.Fatalf("relay: %+v", res)
	}
	for _, name := range []string{"accounting", "notifications"} {
		c := b.consumer(t, name, nil)
		for applied, deadline := 0, time.Now().Add(2*time.Second); applied < 3 && time.Now().Before(deadline); {
			if res := must[engine.ConsumeResult](t)(c.Step(ctx)); res.Outcome == engine.OutcomeApplied {
				applied++
			}
		}
	}
	msgs := func() uint64 {
		info, err := b.broker.js.Stream(ctx, b.broker.Stream())
		if err != nil {
			t.Fatal(err)
		}
		return info.CachedInfo().State.Msgs
	}
	testrun.Eventually(t, time.Second, "the stream emptied of what every consumer acked", func() bool { return msgs() == 0 })
	if ack := must[PubAck](t)(b.broker.PublishAck(ctx, engine.Message{Envelope: envelope(t, b, ids[0]), Topic: engine.TopicPayments})); !ack.Duplicate {
		t.Error("a republish inside the window, after the message left the stream, was not acked as a duplicate")
	}
}
