package engine

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

// publishPayment writes a payment through the outbox and relays it.
func (b *bundle) publishPayment(t *testing.T) PaymentResponse {
	t.Helper()
	resp := must[PaymentResponse](t)(b.writer(t, nil).CreatePayment(context.Background(), payment("c1")))
	if res := must[RelayStepResult](t)(b.relay(t, "relay-1", nil).Step(context.Background())); res.Marked != 1 {
		t.Fatalf("relay: %+v", res)
	}
	return resp
}

// deliveries takes n deliveries of the next message of sub, all at once
// (DuplicateNext before each: the broker hands the same message out again).
func (b *bundle) deliveries(t *testing.T, sub string, n int) []Delivery {
	t.Helper()
	out := make([]Delivery, 0, n)
	for range n {
		b.broker.DuplicateNext()
		d, ok, err := b.broker.Receive(context.Background(), sub)
		if err != nil || !ok {
			t.Fatalf("receive: %v %v", ok, err)
		}
		out = append(out, d)
	}
	return out
}

// handleAtOnce hands each delivery to its own consumer (own connection),
// released together; hook, if not nil, is every consumer's.
func (b *bundle) handleAtOnce(t *testing.T, strategy Strategy, ds []Delivery, hook Hook) ([]ConsumeResult, []error) {
	t.Helper()
	consumers := make([]*Consumer, len(ds))
	for i := range ds {
		consumers[i] = b.consumer(t, "accounting", strategy, hook)
		if _, err := consumers[i].conn(context.Background()); err != nil { // connect first: the race is in SQL
			t.Fatal(err)
		}
	}
	results, errs := make([]ConsumeResult, len(ds)), make([]error, len(ds))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, d := range ds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i], errs[i] = consumers[i].Handle(context.Background(), d)
		}()
	}
	close(start)
	wg.Wait()
	// Their connections closed now, not when the test ends: a test of
	// twenty rounds held fifty more each round and, past the fourth, was
	// refused by max_connections (200).
	for _, c := range consumers {
		_ = c.Close(context.Background())
	}
	return results, errs
}

// S25 #5, S18: fifty deliveries of one message at once: exactly one ledger
// entry; every other one is an expected duplicate, not an error.
func TestConcurrentDuplicateGivesOneEffect(t *testing.T) {
	// Not parallel: 50 connections at once; max_connections is 100.
	b := setup(t)
	resp := b.publishPayment(t)
	results, errs := b.handleAtOnce(t, StrategyInbox, b.deliveries(t, "accounting", 50), nil)
	applied, dups := 0, 0
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("delivery %d: %v", i, errs[i])
		}
		switch r.Outcome {
		case OutcomeApplied:
			applied++
		case OutcomeDuplicate:
			dups++
		}
	}
	if applied != 1 || dups != 49 {
		t.Errorf("applied %d duplicates %d, want 1 and 49", applied, dups)
	}
	if n := b.count(t, "SELECT count(*) FROM ledger_entries WHERE message_id = $1", resp.EventID); n != 1 {
		t.Errorf("%d ledger entries, want 1", n)
	}
	if n := b.counters.DuplicatesIgnored.Load(); n != 49 {
		t.Errorf("duplicates counted %d, want 49", n)
	}
	if st := b.broker.Stats(); st.InFlight["accounting"] != 0 || st.Acked != 50 {
		t.Errorf("broker in flight %d acked %d: every delivery must be ACKed", st.InFlight["accounting"], st.Acked)
	}
}

// S18, the wrong way: SELECT then INSERT lets concurrent duplicates through.
// Fifty deliveries of one message at once, each of which SELECTs before any
// of them INSERTs: each finds no earlier effect, and each applies its own.
// The interleaving is forced (each consumer waits after its SELECT for all
// fifty to have run theirs): left to the scheduler, it came in some of 20
// rounds on a quiet machine and in none of them on a loaded one.
func TestSelectThenInsertDoublesUnderConcurrency(t *testing.T) {
	// Not parallel: 50 connections at once; max_connections is 100.
	b := setup(t)
	const n = 50
	resp := b.publishPayment(t)
	var selected sync.WaitGroup
	selected.Add(n)
	allSelected := make(chan struct{})
	go func() { selected.Wait(); close(allSelected) }()
	afterSelect := func(ctx context.Context, ev Event) error {
		if ev.Checkpoint != ConsumerInboxInserted {
			return nil
		}
		selected.Done()
		select {
		case <-allSelected:
			return nil
		case <-time.After(30 * time.Second):
			return errors.New("not every consumer ran its SELECT within 30s")
		}
	}
	results, errs := b.handleAtOnce(t, StrategySelectThenInsert, b.deliveries(t, "accounting", n), afterSelect)
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	applied := 0
	for _, r := range results {
		if r.Outcome == OutcomeApplied {
			applied++
		}
	}
	entries := b.count(t, "SELECT count(*) FROM ledger_entries WHERE message_id = $1", resp.EventID)
	markers := b.count(t, "SELECT count(*) FROM inbox_messages WHERE message_id = $1", resp.EventID)
	if applied != n || entries != n || markers != 1 {
		t.Errorf("%d applied, %d ledger entries and %d inbox markers for one message, want %d, %d and 1 (the marker's ON CONFLICT hides the second marker, not the second effect)", applied, entries, markers, n, n)
	}
}

// S25 #6, S17: a crash after COMMIT and before ACK: the redelivery finds the
// marker, no second entry. A crash before COMMIT: marker and entry roll back
// together and the redelivery applies the effect once.
func TestCrashAroundAck(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name          string
		at            Checkpoint
		afterCrash    int64 // ledger entries right after the crash
		redelivered   Outcome
		markersBefore int64
	}{
		{"after commit before ack", ConsumerCommitted, 1, OutcomeDuplicate, 1},
		{"before commit", ConsumerEffectApplied, 0, OutcomeApplied, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			ctx := context.Background()
			resp := b.publishPayment(t)
			_, err := b.consumer(t, "accounting", StrategyInbox, faultAt(tc.at, ErrCrash)).Step(ctx)
			mustErrIs(t, err, ErrCrash)
			if n := b.count(t, "SELECT count(*) FROM ledger_entries"); n != tc.afterCrash {
				t.Fatalf("ledger entries after crash %d, want %d", n, tc.afterCrash)
			}
			if n := b.count(t, "SELECT count(*) FROM inbox_messages"); n != tc.markersBefore {
				t.Fatalf("inbox markers after crash %d, want %d", n, tc.markersBefore)
			}
			if st := b.broker.Stats(); st.InFlight["accounting"] != 1 {
				t.Fatalf("the unACKed delivery must stay with the broker: %+v", st.InFlight)
			}
			restarted := b.consumer(t, "accounting", StrategyInbox, nil)
			if res := must[ConsumeResult](t)(restarted.Step(ctx)); res.Outcome != OutcomeIdle {
				t.Fatalf("redelivered before the ack timeout: %v", res.Outcome)
			}
			b.clock.Advance(30 * time.Second)
			res := must[ConsumeResult](t)(restarted.Step(ctx))
			if res.Outcome != tc.redelivered || res.Delivery != 2 || res.MessageID != resp.EventID {
				t.Fatalf("redelivery %+v, want %v of delivery 2", res, tc.redelivered)
			}
			if n := b.count(t, "SELECT count(*) FROM ledger_entries"); n != 1 {
				t.Errorf("ledger entries %d, want 1", n)
			}
			if st := b.broker.Stats(); st.InFlight["accounting"] != 0 || st.Queued["accounting"] != 0 {
				t.Errorf("left with the broker: %+v %+v", st.InFlight, st.Queued)
			}
		})
	}
}

// S6: two consumers each process their own copy once, duplicates included.
func TestTwoConsumersEachOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	resp := b.publishPayment(t)
	for _, name := range []string{"accounting", "notifications"} {
		c := b.consumer(t, name, StrategyInbox, nil)
		b.broker.DuplicateNext()
		first := must[ConsumeResult](t)(c.Step(ctx))
		second := must[ConsumeResult](t)(c.Step(ctx))
		if first.Outcome != OutcomeApplied || second.Outcome != OutcomeDuplicate {
			t.Errorf("%s: %v then %v", name, first.Outcome, second.Outcome)
		}
	}
	if n := b.count(t, "SELECT count(*) FROM ledger_entries WHERE message_id = $1", resp.EventID); n != 1 {
		t.Errorf("ledger entries %d, want 1", n)
	}
	if n := b.count(t, "SELECT count(*) FROM notifications WHERE message_id = $1", resp.EventID); n != 1 {
		t.Errorf("notifications %d, want 1", n)
	}
	if n := b.count(t, "SELECT count(DISTINCT consumer_name) FROM inbox_messages WHERE message_id = $1", resp.EventID); n != 2 {
		t.Errorf("inbox markers for %d consumers, want 2", n)
	}
}

// S25 #10, S20: a version ahead of the expected one is detected, not applied,
// and NACKed; once the gap closes it applies. A version behind is parked.
func TestConsumerDetectsUnexpectedVersion(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	w := b.writer(t, nil)
	created := must[PaymentResponse](t)(w.CreatePayment(ctx, payment("c1")))
	captured := must[Envelope](t)(w.CapturePayment(ctx, created.PaymentID, uuid.Nil, ""))
	if captured.AggregateVersion != 2 {
		t.Fatalf("capture version %d, want 2", captured.AggregateVersion)
	}
	createdEnv := must[Envelope](t)(b.envelope(t, created.EventID))
	// Two relays raced: version 2 reaches the broker first.
	for _, env := range []Envelope{captured, createdEnv} {
		if err := b.broker.Publish(ctx, newMessage(env, TopicPayments, "relay-x")); err != nil {
			t.Fatal(err)
		}
	}
	var gaps []Event
	c := b.consumer(t, "accounting", StrategyInbox, func(_ context.Context, ev Event) error {
		if ev.Checkpoint == ConsumerVersionGap {
			gaps = append(gaps, ev)
		}
		return nil
	})
	res := must[ConsumeResult](t)(c.Step(ctx))
	if res.Outcome != OutcomeVersionGap || res.Expected != 1 || res.Got != 2 || len(gaps) != 1 {
		t.Fatalf("first step %+v (gap events %d), want a version gap expected 1 got 2", res, len(gaps))
	}
	if n := b.count(t, "SELECT count(*) FROM inbox_messages WHERE message_id = $1", captured.ID); n != 0 {
		t.Fatalf("the out-of-order message left an inbox marker")
	}
	if n := b.count(t, "SELECT count(*) FROM consumer_positions"); n != 0 {
		t.Fatalf("position moved on a gap")
	}
	if res := must[ConsumeResult](t)(c.Step(ctx)); res.Outcome != OutcomeApplied || res.MessageID != created.EventID {
		t.Fatalf("second step %+v, want version 1 applied", res)
	}
	if res := must[ConsumeResult](t)(c.Step(ctx)); res.Outcome != OutcomeIdle {
		t.Fatalf("the NACKed message came back before its delay: %+v", res)
	}
	b.clock.Advance(time.Second)
	if res := must[ConsumeResult](t)(c.Step(ctx)); res.Outcome != OutcomeApplied || res.MessageID != captured.ID || res.Delivery != 2 {
		t.Fatalf("after the gap closed: %+v", res)
	}
	var last int64
	if err := b.pool.QueryRow(ctx, "SELECT last_version FROM consumer_positions WHERE consumer_name = 'accounting' AND aggregate_id = $1",
		created.PaymentID.String()).Scan(&last); err != nil || last != 2 {
		t.Fatalf("position %d %v, want 2", last, err)
	}

	// A different event claiming an old version can never apply in order: parked.
	stale := createdEnv
	stale.ID = newEventID()
	if err := b.broker.Publish(ctx, newMessage(stale, TopicPayments, "relay-x")); err != nil {
		t.Fatal(err)
	}
	if res := must[ConsumeResult](t)(c.Step(ctx)); res.Outcome != OutcomeParked {
		t.Fatalf("stale version: %+v, want parked", res)
	}
	if dl := b.broker.DeadLetters("accounting"); len(dl) != 1 || dl[0].Delivery.ID != stale.ID {
		t.Errorf("dead letters %+v", dl)
	}
	if n := b.count(t, "SELECT count(*) FROM ledger_entries"); n != 1 {
		t.Errorf("ledger entries %d, want 1", n)
	}
}

// envelope reads an outbox row back as the relay would publish it.
func (b *bundle) envelope(t *testing.T, id uuid.UUID) (Envelope, error) {
	var e Envelope
	var trace *string
	var payload []byte
	err := b.pool.QueryRow(context.Background(), `SELECT id, aggregate_type, aggregate_id, aggregate_version, event_type, schema_version, payload, trace_parent, occurred_at
		FROM outbox_messages WHERE id = $1`, id).Scan(&e.ID, &e.AggregateType, &e.AggregateID, &e.AggregateVersion, &e.Type, &e.SchemaVersion, &payload, &trace, &e.OccurredAt)
	e.Payload = json.RawMessage(payload)
	if trace != nil {
		e.TraceParent = *trace
	}
	return e, err
}

// S22, the wrong way: an inbox keyed on the trace id takes a payment's
// capture, a second event of the same trace, for a duplicate of the payment
// and suppresses its effect (here, moving the consumer's position to version
// 2), although the broker delivered nothing twice. Keyed on the event id,
// both events are applied. A delivery that carries no trace is keyed on its
// event id.
func TestTraceIDKeySuppressesASecondEventOfTheTrace(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	w := b.writer(t, nil)
	created := must[PaymentResponse](t)(w.CreatePayment(ctx, payment("c1")))
	tp := payment("c1").TraceParent // the capture continues its trace: same trace id, another span
	captured := must[Envelope](t)(w.CapturePayment(ctx, created.PaymentID, uuid.Nil, tp[:36]+"b7ad6b7169203331-01"))
	untraced := must[PaymentResponse](t)(w.CreatePayment(ctx, PaymentRequest{ClientID: "c2", AmountCents: 700, Currency: "EUR"}))
	if res := must[RelayStepResult](t)(b.relay(t, "relay-1", nil).Step(ctx)); res.Marked != 3 {
		t.Fatalf("relay: %+v", res)
	}
	traceID := uuid.MustParse(tp[3:35])
	var keys []uuid.UUID
	hook := func(_ context.Context, ev Event) error {
		if ev.Checkpoint == ConsumerInboxInserted {
			keys = append(keys, ev.InboxKey)
		}
		return nil
	}
	right := b.consumer(t, "accounting", StrategyInbox, nil)
	wrong := NewConsumer(ConsumerConfig{Name: "notifications", Strategy: StrategyTraceID, Connect: b.connect, Subscriber: b.broker,
		Clock: b.clock, Hook: hook, Counters: b.counters})
	t.Cleanup(func() { _ = wrong.Close(context.Background()) })
	ids := []uuid.UUID{created.EventID, captured.ID, untraced.EventID}
	for _, tc := range []struct {
		c    *Consumer
		want []Outcome
	}{
		{right, []Outcome{OutcomeApplied, OutcomeApplied, OutcomeApplied}},
		{wrong, []Outcome{OutcomeApplied, OutcomeDuplicate, OutcomeApplied}},
	} {
		for i, want := range tc.want {
			res := must[ConsumeResult](t)(tc.c.Step(ctx))
			if res.MessageID != ids[i] || res.Outcome != want {
				t.Errorf("%s, delivery %d: %s of %s, want %s of %s", tc.c.consumer, i+1, res.Outcome, res.MessageID, want, ids[i])
			}
		}
	}
	if want := []uuid.UUID{traceID, traceID, uuid.Nil}; len(keys) != 3 || keys[0] != want[0] || keys[1] != want[1] || keys[2] != want[2] {
		t.Errorf("inbox keys the checkpoints name %v, want %v (the trace, twice; none for the untraced event)", keys, want)
	}
	for _, c := range []struct {
		sql  string
		args []any
		want int64
	}{
		{"SELECT count(*) FROM inbox_messages WHERE consumer_name = 'accounting' AND message_id = ANY($1)", []any{ids}, 3},
		{"SELECT count(*) FROM inbox_messages WHERE consumer_name = 'notifications' AND message_id = $1", []any{traceID}, 1},
		{"SELECT count(*) FROM inbox_messages WHERE consumer_name = 'notifications' AND message_id = $1", []any{untraced.EventID}, 1},
		{"SELECT last_version FROM consumer_positions WHERE consumer_name = 'accounting' AND aggregate_id = $1", []any{created.PaymentID.String()}, 2},
		{"SELECT last_version FROM consumer_positions WHERE consumer_name = 'notifications' AND aggregate_id = $1", []any{created.PaymentID.String()}, 1},
		{"SELECT count(*) FROM notifications", nil, 2},
	} {
		if n := b.count(t, c.sql, c.args...); n != c.want {
			t.Errorf("%s: %d, want %d", c.sql, n, c.want)
		}
	}
	st := b.broker.Stats()
	if st.Duplicated != 0 || st.Redelivered != 0 || st.InFlight["notifications"] != 0 || st.Queued["notifications"] != 0 {
		t.Errorf("broker %+v: no delivery twice, and everything settled", st)
	}
	if n := b.counters.DuplicatesIgnored.Load(); n != 1 {
		t.Errorf("duplicates ignored %d, want 1: the capture, taken for one", n)
	}
}

func TestParseStrategy(t *testing.T) {
	for _, name := range []string{"inbox", "select-then-insert", "trace-id"} {
		if s, err := ParseStrategy(name); err != nil || string(s) != name {
			t.Errorf("ParseStrategy(%q) = %q, %v", name, s, err)
		}
	}
	if _, err := ParseStrategy("exactly-once"); err == nil {
		t.Error("an unknown strategy was accepted")
	}
}

// HandleBatch keeps Handle's guarantees: one effect per message, duplicates
// within and across batches ignored, out-of-order versions refused.
func TestHandleBatch(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	w := b.writer(t, nil)
	created := must[PaymentResponse](t)(w.CreatePayment(ctx, payment("c1")))
	captured := must[Envelope](t)(w.CapturePayment(ctx, created.PaymentID, uuid.Nil, ""))
	other := must[PaymentResponse](t)(w.CreatePayment(ctx, payment("c2")))
	for _, id := range []uuid.UUID{captured.ID, other.EventID, other.EventID} { // v2 before v1; a duplicate
		env := must[Envelope](t)(b.envelope(t, id))
		_ = b.broker.Publish(ctx, newMessage(env, TopicPayments, "relay-x"))
	}
	c := NewConsumer(ConsumerConfig{Name: "accounting", Connect: b.connect, Subscriber: b.broker, Clock: b.clock, Counters: b.counters, BatchSize: 10})
	defer c.Close(ctx)
	rs := must[[]ConsumeResult](t)(c.StepBatch(ctx))
	got := map[Outcome]int{}
	for _, r := range rs {
		got[r.Outcome]++
	}
	if len(rs) != 3 || got[OutcomeVersionGap] != 1 || got[OutcomeApplied] != 1 || got[OutcomeDuplicate] != 1 {
		t.Fatalf("first batch %v", got)
	}
	env := must[Envelope](t)(b.envelope(t, created.EventID))
	_ = b.broker.Publish(ctx, newMessage(env, TopicPayments, "relay-x"))
	b.clock.Advance(time.Second) // the NACKed v2 is due again
	rs = must[[]ConsumeResult](t)(c.StepBatch(ctx))
	if len(rs) != 2 || rs[0].Outcome != OutcomeApplied || rs[1].Outcome != OutcomeApplied {
		t.Fatalf("second batch %+v, want v1 and v2 applied in one transaction", rs)
	}
	if n := b.count(t, "SELECT count(*) FROM ledger_entries"); n != 2 {
		t.Errorf("ledger entries %d, want 2 (one per PaymentCreated)", n)
	}
	if n := b.count(t, "SELECT last_version FROM consumer_positions WHERE aggregate_id = $1", created.PaymentID.String()); n != 2 {
		t.Errorf("position %d, want 2", n)
	}
	if st := b.broker.Stats(); st.InFlight["accounting"] != 0 || st.Queued["accounting"] != 0 {
		t.Errorf("unsettled: %+v %+v", st.InFlight, st.Queued)
	}
}

// A position another consumer creates between the batch's read and its
// advance loses the batch the race: nothing is applied, everything is handed
// back, and the other consumer's position stands (S20).
func TestHandleBatchLosesPositionRace(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	w := b.writer(t, nil)
	a := must[PaymentResponse](t)(w.CreatePayment(ctx, payment("c1")))
	other := must[PaymentResponse](t)(w.CreatePayment(ctx, payment("c2")))
	captured := must[Envelope](t)(w.CapturePayment(ctx, other.PaymentID, uuid.Nil, ""))
	for _, id := range []uuid.UUID{a.EventID, captured.ID} { // a's v1; other's v2 without its v1 (a gap)
		env := must[Envelope](t)(b.envelope(t, id))
		_ = b.broker.Publish(ctx, newMessage(env, TopicPayments, "relay-x"))
	}
	hook := func(ctx context.Context, ev Event) error {
		if ev.Checkpoint != ConsumerVersionGap { // after the positions were read, before they advance
			return nil
		}
		_, err := b.pool.Exec(ctx, "INSERT INTO consumer_positions (consumer_name, aggregate_id, last_version) VALUES ('accounting', $1, 1)", a.PaymentID.String())
		return err
	}
	c := NewConsumer(ConsumerConfig{Name: "accounting", Connect: b.connect, Subscriber: b.broker, Clock: b.clock, Counters: b.counters, BatchSize: 10, Hook: hook})
	defer c.Close(ctx)
	_, err := c.StepBatch(ctx)
	mustErrIs(t, err, ErrSerialization)
	if n := b.count(t, "SELECT count(*) FROM ledger_entries"); n != 0 {
		t.Errorf("ledger entries %d, want 0", n)
	}
	if n := b.count(t, "SELECT count(*) FROM inbox_messages"); n != 0 {
		t.Errorf("inbox markers %d, want 0", n)
	}
	if st := b.broker.Stats(); st.InFlight["accounting"] != 0 || st.Queued["accounting"] != 2 {
		t.Errorf("not handed back: %+v %+v", st.InFlight, st.Queued)
	}
}
