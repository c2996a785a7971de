package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/outboxlab/outboxlab/engine"
)

// status is GET /payments/{id}'s body, as a client decodes it.
type status struct {
	PaymentID   string    `json:"payment_id"`
	ClientID    string    `json:"client_id"`
	AmountCents int64     `json:"amount_cents"`
	Currency    string    `json:"currency"`
	Version     int64     `json:"version"`
	TraceParent string    `json:"trace_parent"`
	CreatedAt   time.Time `json:"created_at"`
	AsOf        time.Time `json:"as_of"`
	Events      []struct {
		EventID          string     `json:"event_id"`
		EventType        string     `json:"event_type"`
		AggregateVersion int64      `json:"aggregate_version"`
		State            string     `json:"state"`
		Attempts         int        `json:"attempts"`
		NextAttemptAt    *time.Time `json:"next_attempt_at"`
		LeasedBy         string     `json:"leased_by"`
		LeasedUntil      *time.Time `json:"leased_until"`
		PublishedAt      *time.Time `json:"published_at"`
		DeadLetteredAt   *time.Time `json:"dead_lettered_at"`
		LastError        string     `json:"last_error"`
		AppliedBy        []struct {
			Consumer    string    `json:"consumer"`
			ProcessedAt time.Time `json:"processed_at"`
		} `json:"applied_by"`
	} `json:"events"`
}

func (b *bundle) get(t *testing.T, id string) status {
	t.Helper()
	r := b.do(t, http.MethodGet, "/payments/"+id, nil)
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET %s: %d %s: %s", id, r.status, r.header.Get("Content-Type"), r.body)
	}
	var s status
	if err := json.Unmarshal(r.body, &s); err != nil {
		t.Fatalf("GET %s: %s: %v", id, r.body, err)
	}
	if len(s.Events) != 1 {
		t.Fatalf("GET %s: %d events, want 1: %s", id, len(s.Events), r.body)
	}
	return s
}

// GET follows the event a POST made: pending, leased by the relay that
// crashed after claiming it, lease expired once the virtual clock passes the
// lease, published by another relay, applied by accounting's inbox.
func TestGetPaymentFollowsItsEvent(t *testing.T) {
	t.Parallel()
	b := setup(t, DBConfig{})
	ctx := context.Background()
	c := mustCreated(t, b.post(t, validBody, "Traceparent", sentTrace))
	at := b.clock.Now()

	s := b.get(t, c.PaymentID)
	ev := s.Events[0]
	if s.PaymentID != c.PaymentID || s.ClientID != "acme" || s.AmountCents != 1250 || s.Currency != "EUR" || s.Version != 1 ||
		s.TraceParent != sentTrace || !s.CreatedAt.Equal(at) || !s.AsOf.Equal(at) {
		t.Errorf("payment %+v", s)
	}
	if ev.EventID != c.EventID || ev.EventType != engine.EventPaymentCreated || ev.AggregateVersion != 1 || ev.State != "pending" ||
		ev.Attempts != 0 || ev.NextAttemptAt == nil || !ev.NextAttemptAt.Equal(at) || ev.LeasedBy != "" || ev.PublishedAt != nil ||
		ev.AppliedBy == nil || len(ev.AppliedBy) != 0 {
		t.Errorf("a new event %+v", ev)
	}

	broker := engine.NewBroker(engine.BrokerConfig{Clock: b.clock})
	if err := broker.Subscribe(engine.TopicPayments, "accounting"); err != nil {
		t.Fatal(err)
	}
	relay := func(name string, hook engine.Hook) *engine.Relay {
		r := engine.NewRelay(engine.RelayConfig{Name: name, Connect: engine.ConnectURL(b.dbURL), Publisher: broker, Clock: b.clock, Hook: hook})
		t.Cleanup(func() { _ = r.Close(context.Background()) })
		return r
	}
	crashed := relay("relay-1", faultOnce(engine.RelayClaimed, engine.ErrCrash))
	if _, err := crashed.Step(ctx); err == nil {
		t.Fatal("relay-1 did not crash")
	}
	ev = b.get(t, c.PaymentID).Events[0]
	if ev.State != "leased" || ev.LeasedBy != crashed.WorkerID().String() || ev.LeasedUntil == nil ||
		!ev.LeasedUntil.Equal(at.Add(30*time.Second)) || ev.Attempts != 1 || ev.NextAttemptAt != nil {
		t.Errorf("claimed by relay-1 %s: %+v", crashed.WorkerID(), ev)
	}

	b.clock.Advance(31 * time.Second)
	if ev = b.get(t, c.PaymentID).Events[0]; ev.State != "lease_expired" || ev.LeasedBy != crashed.WorkerID().String() {
		t.Errorf("past relay-1's lease: %+v", ev)
	}

	if _, err := relay("relay-2", nil).Step(ctx); err != nil {
		t.Fatal(err)
	}
	consumer := engine.NewConsumer(engine.ConsumerConfig{Name: "accounting", Connect: engine.ConnectURL(b.dbURL), Subscriber: broker, Clock: b.clock})
	t.Cleanup(func() { _ = consumer.Close(context.Background()) })
	if _, err := consumer.Step(ctx); err != nil {
		t.Fatal(err)
	}
	ev = b.get(t, c.PaymentID).Events[0]
	if ev.State != "published" || ev.PublishedAt == nil || !ev.PublishedAt.Equal(b.clock.Now()) || ev.LeasedBy != "" ||
		ev.Attempts != 2 || len(ev.AppliedBy) != 1 || ev.AppliedBy[0].Consumer != "accounting" || !ev.AppliedBy[0].ProcessedAt.Equal(b.clock.Now()) {
		t.Errorf("published and applied by accounting: %+v", ev)
	}
}

// A relay whose publishes all fail dead-letters the event at its last attempt.
func TestGetPaymentDeadLettered(t *testing.T) {
	t.Parallel()
	b := setup(t, DBConfig{})
	c := mustCreated(t, b.post(t, validBody))
	broker := engine.NewBroker(engine.BrokerConfig{Clock: b.clock})
	broker.SetDown(true)
	r := engine.NewRelay(engine.RelayConfig{Connect: engine.ConnectURL(b.dbURL), Publisher: broker, Clock: b.clock, MaxAttempts: 1})
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	if _, err := r.Step(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ev := b.get(t, c.PaymentID).Events[0]; ev.State != "dead_lettered" || ev.DeadLetteredAt == nil || ev.LastError == "" {
		t.Errorf("dead-lettered: %+v", ev)
	}
}

// 400 for an id that is not a UUID in its one spelling, 404 for one no payment has.
func TestGetPaymentBadOrUnknownID(t *testing.T) {
	t.Parallel()
	b := setup(t, DBConfig{})
	for _, id := range []string{"42", "not-a-uuid", "0190a8c46b1e7c3a9f2d1e5b7a9c3d4f", "{0190a8c4-6b1e-7c3a-9f2d-1e5b7a9c3d4f}",
		"0190a8c4-6b1e-7c3a-9f2d-1e5b7a9c3d4g"} {
		mustProblem(t, b.do(t, http.MethodGet, "/payments/"+id, nil), http.StatusBadRequest)
	}
	mustProblem(t, b.do(t, http.MethodGet, "/payments/"+uuid.Must(uuid.NewV7()).String(), nil), http.StatusNotFound)
	// HEAD is GET without a body.
	if r := b.do(t, http.MethodHead, "/payments/"+uuid.Must(uuid.NewV7()).String(), nil); r.status != http.StatusNotFound || len(r.body) != 0 {
		t.Errorf("HEAD of an unknown payment: %d, %d bytes", r.status, len(r.body))
	}
}
