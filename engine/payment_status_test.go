package engine

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
)

// readStatus reads id's status on a fresh connection at the bundle's clock.
func (b *bundle) readStatus(t *testing.T, id uuid.UUID) PaymentStatus {
	t.Helper()
	st, err := ReadPaymentStatus(context.Background(), b.conn(t), id, b.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// One event followed through every state the read reports, each judged at
// the bundle's virtual clock: pending, leased by the relay that crashed after
// its claim, lease expired once the clock passes it, published, applied by
// accounting and then by notifications.
func TestPaymentStatusFollowsTheEvent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	resp := must[PaymentResponse](t)(b.writer(t, nil).CreatePayment(ctx, payment("c1")))

	st := b.readStatus(t, resp.PaymentID)
	if st.ClientID != "c1" || st.AmountCents != 1250 || st.Currency != "EUR" || st.Version != 1 ||
		st.TraceParent != payment("").TraceParent || !st.CreatedAt.Equal(resp.CreatedAt) || !st.At.Equal(b.clock.Now()) {
		t.Errorf("payment %+v", st)
	}
	if len(st.Events) != 1 {
		t.Fatalf("%d events, want 1", len(st.Events))
	}
	ev := st.Events[0]
	if ev.EventID != resp.EventID || ev.Type != EventPaymentCreated || ev.AggregateVersion != 1 || ev.State != EventPending ||
		ev.Attempts != 0 || !ev.NextAttemptAt.Equal(resp.CreatedAt) || ev.LeasedBy != uuid.Nil || len(ev.AppliedBy) != 0 {
		t.Errorf("new event %+v", ev)
	}

	crashed := b.relay(t, "relay-1", faultAt(RelayClaimed, ErrCrash))
	if _, err := crashed.Step(ctx); err == nil {
		t.Fatal("relay-1 did not crash")
	}
	ev = b.readStatus(t, resp.PaymentID).Events[0]
	if ev.State != EventLeased || ev.LeasedBy != crashed.WorkerID() || !ev.LeasedUntil.Equal(b.clock.Now().Add(30*time.Second)) || ev.Attempts != 1 {
		t.Errorf("after the claim %+v, want leased by %s", ev, crashed.WorkerID())
	}

	b.clock.Advance(31 * time.Second)
	if ev = b.readStatus(t, resp.PaymentID).Events[0]; ev.State != EventLeaseExpired || ev.LeasedBy != crashed.WorkerID() {
		t.Errorf("past the lease %+v, want lease_expired", ev)
	}

	must[RelayStepResult](t)(b.relay(t, "relay-2", nil).Step(ctx))
	ev = b.readStatus(t, resp.PaymentID).Events[0]
	if ev.State != EventPublished || !ev.PublishedAt.Equal(b.clock.Now()) || ev.LeasedBy != uuid.Nil || ev.Attempts != 2 {
		t.Errorf("after publishing %+v", ev)
	}

	must[ConsumeResult](t)(b.consumer(t, "accounting", StrategyInbox, nil).Step(ctx))
	ev = b.readStatus(t, resp.PaymentID).Events[0]
	if len(ev.AppliedBy) != 1 || ev.AppliedBy[0].Consumer != "accounting" || !ev.AppliedBy[0].ProcessedAt.Equal(b.clock.Now()) {
		t.Errorf("after accounting: applied by %+v", ev.AppliedBy)
	}
	b.clock.Advance(time.Second)
	must[ConsumeResult](t)(b.consumer(t, "notifications", StrategyInbox, nil).Step(ctx))
	ev = b.readStatus(t, resp.PaymentID).Events[0]
	if len(ev.AppliedBy) != 2 || ev.AppliedBy[0].Consumer != "accounting" || ev.AppliedBy[1].Consumer != "notifications" ||
		!ev.AppliedBy[1].ProcessedAt.Equal(b.clock.Now()) {
		t.Errorf("after both consumers: applied by %+v", ev.AppliedBy)
	}
}

// A capture adds version 2 after version 1; a payment without outbox rows
// (the naive writer's) has none; an unknown id is ErrNotFound.
func TestPaymentStatusEventsAndAbsence(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	w := b.writer(t, nil)
	resp := must[PaymentResponse](t)(w.CreatePayment(ctx, payment("c1")))
	b.clock.Advance(time.Second)
	captured := must[Envelope](t)(w.CapturePayment(ctx, resp.PaymentID, uuid.Nil, ""))
	st := b.readStatus(t, resp.PaymentID)
	if st.Version != 2 || len(st.Events) != 2 || st.Events[0].EventID != resp.EventID ||
		st.Events[1].EventID != captured.ID || st.Events[1].Type != EventPaymentCaptured || st.Events[1].AggregateVersion != 2 {
		t.Errorf("after a capture: version %d, events %+v", st.Version, st.Events)
	}

	if _, err := b.pool.Exec(ctx, "DELETE FROM outbox_messages"); err != nil {
		t.Fatal(err)
	}
	if st = b.readStatus(t, resp.PaymentID); len(st.Events) != 0 || st.PaymentID != resp.PaymentID {
		t.Errorf("without outbox rows: %+v", st)
	}

	_, err := ReadPaymentStatus(ctx, b.conn(t), uuid.Must(uuid.NewV7()), b.clock.Now())
	mustErrIs(t, err, ErrNotFound)
}

// A publish that fails at the last attempt leaves the event dead-lettered,
// with the error that put it there.
func TestPaymentStatusDeadLettered(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	resp := must[PaymentResponse](t)(b.writer(t, nil).CreatePayment(ctx, payment("c1")))
	b.broker.SetDown(true)
	r := NewRelay(RelayConfig{Name: "relay-1", Connect: b.connect, Publisher: b.broker, Clock: b.clock, MaxAttempts: 1})
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	must[RelayStepResult](t)(r.Step(ctx))
	ev := b.readStatus(t, resp.PaymentID).Events[0]
	if ev.State != EventDeadLettered || !ev.DeadLetteredAt.Equal(b.clock.Now()) || ev.LastError == "" || ev.LeasedBy != uuid.Nil {
		t.Errorf("dead-lettered event %+v", ev)
	}
}
