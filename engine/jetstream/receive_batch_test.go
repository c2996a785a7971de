package jetstream

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/internal/testrun"
)

// A batch consumer takes what JetStream holds with one pull of its batch
// size (engine.BatchReceiver) instead of a pull per FetchBatch: three
// events per payment (created, captured twice), 60 in all, handed out in
// one step of 64, none lost, each payment's in version order, every one
// applied (no version gap) and acknowledged.
func TestBatchFetchLosesAndReordersNothing(t *testing.T) {
	t.Parallel()
	b := setup(t, Config{})
	ctx := context.Background()
	w := engine.NewWriter(engine.WriterConfig{Connect: b.connect, Clock: b.clock})
	t.Cleanup(func() { _ = w.Close(context.Background()) })
	ids := b.seed(t, 20)
	var payments []uuid.UUID
	if err := func() error {
		rows, err := b.pool.Query(ctx, `SELECT aggregate_id::uuid FROM outbox_messages WHERE id = ANY($1) ORDER BY occurred_at, id`, ids)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id uuid.UUID
			if err := rows.Scan(&id); err != nil {
				return err
			}
			payments = append(payments, id)
		}
		return rows.Err()
	}(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		b.clock.Advance(time.Second) // each round after the one before in the claim's order
		for _, p := range payments {
			must[engine.Envelope](t)(w.CapturePayment(ctx, p, uuid.Nil, ""))
		}
	}
	r := engine.NewRelay(engine.RelayConfig{Name: "relay-1", Connect: b.connect, Publisher: b.broker, Clock: b.clock,
		PublishBatches: true, BatchSize: 100})
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	if res := must[engine.RelayStepResult](t)(r.Step(ctx)); res.Published != 60 || res.Marked != 60 {
		t.Fatalf("relay: %+v, want 60 published and marked", res)
	}
	c := engine.NewConsumer(engine.ConsumerConfig{Name: "accounting", Connect: b.connect, Subscriber: b.broker, Clock: b.clock, BatchSize: 64})
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	pulls := b.broker.Stats().Pulls
	results := must[[]engine.ConsumeResult](t)(c.StepBatch(ctx))
	if len(results) != 60 {
		t.Fatalf("one step handed out %d of the 60", len(results))
	}
	if n := b.broker.Stats().Pulls - pulls; n != 1 {
		t.Errorf("the step pulled %d times, want once", n)
	}
	last := map[uuid.UUID]int64{}
	seen := map[uuid.UUID]bool{}
	for _, res := range results {
		if res.Outcome != engine.OutcomeApplied || res.AckErr != nil {
			t.Errorf("%+v, want applied and acked", res)
		}
		if seen[res.MessageID] {
			t.Errorf("%s handed out twice", res.MessageID)
		}
		seen[res.MessageID] = true
		if res.Got != last[res.PaymentID]+1 {
			t.Errorf("payment %s: version %d after %d", res.PaymentID, res.Got, last[res.PaymentID])
		}
		last[res.PaymentID] = res.Got
	}
	for _, p := range payments {
		if last[p] != 3 {
			t.Errorf("payment %s: last version applied %d, want 3", p, last[p])
		}
	}
	if more := must[[]engine.ConsumeResult](t)(c.StepBatch(ctx)); len(more) != 0 {
		t.Errorf("a second step handed out %d more", len(more))
	}
	testrun.Awaited(t, time.Second, "after the batch, none waiting or unacked in JetStream", func() [2]int {
		waiting, unacked := b.pending(t, "accounting")
		return [2]int{waiting, unacked}
	}, func(n [2]int) bool { return n == [2]int{} })
}

// A hand-out that fails (the broker.delivered hook: a crash there) stops a
// batch where Receive would stop: what came before is handed out, the one
// that failed is not settled (JetStream hands it out again after AckWait,
// delivery 2), and those after it wait for the next call, in their order.
func TestReceiveBatchStopsAtAFailedHandOut(t *testing.T) {
	t.Parallel()
	crash := errors.New("crash at broker.delivered")
	var n atomic.Int32
	b := setup(t, Config{AckWait: 500 * time.Millisecond, Hook: func(_ context.Context, ev engine.Event) error {
		if ev.Checkpoint == engine.BrokerDelivered && n.Add(1) == 3 {
			return crash
		}
		return nil
	}})
	ctx := context.Background()
	ids := publishN(t, b.broker, 5)
	ds, err := b.broker.ReceiveBatch(ctx, "accounting", 10)
	if !errors.Is(err, crash) || len(ds) != 2 || ds[0].ID != ids[0] || ds[1].ID != ids[1] {
		t.Fatalf("first call: %d deliveries, %v; want the first 2 and the crash", len(ds), err)
	}
	ds, err = b.broker.ReceiveBatch(ctx, "accounting", 10)
	if err != nil || len(ds) != 2 || ds[0].ID != ids[3] || ds[1].ID != ids[4] {
		t.Fatalf("second call: %+v, %v; want the last 2 in order", ds, err)
	}
	for _, d := range ds {
		if err := b.broker.Ack(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	var again engine.Delivery
	testrun.Eventually(t, 3*time.Second, "the failed hand-out handed out again after AckWait", func() bool {
		ds, err = b.broker.ReceiveBatch(ctx, "accounting", 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if d.ID == ids[2] {
				again = d
				return true
			}
		}
		return false
	})
	if again.Count != 2 {
		t.Errorf("the failed hand-out came back as delivery %d, want 2", again.Count)
	}
}
