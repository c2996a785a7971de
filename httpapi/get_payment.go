package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/outboxlab/outboxlab/engine"
)

// getPayment is GET /payments/{id}.
func (h *handler) getPayment(w http.ResponseWriter, r *http.Request) {
	raw := r.PathValue("id")
	id, err := uuid.Parse(raw)
	if err != nil || len(raw) != 36 {
		// Only the form Location gives (8-4-4-4-12 hex): one payment, one URL.
		writeProblem(w, http.StatusBadRequest, fmt.Sprintf("%q is not a payment id: a UUID such as 0190a8c4-6b1e-7c3a-9f2d-1e5b7a9c3d4f", raw))
		return
	}
	st, err := h.backend.Payment(r.Context(), id)
	if err != nil {
		writeBackendError(w, err)
		return
	}
	body, err := json.Marshal(viewPayment(st))
	if err != nil {
		writeBackendError(w, fmt.Errorf("encode payment %s: %w", id, err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	// Where the events are changes from one moment to the next.
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(append(body, '\n'))
}

// paymentView is GET /payments/{id}'s body: the payment's columns, then its
// events. Times are UTC; a time or worker that does not apply is left out.
type paymentView struct {
	PaymentID   uuid.UUID   `json:"payment_id"`
	ClientID    string      `json:"client_id"`
	AmountCents int64       `json:"amount_cents"`
	Currency    string      `json:"currency"`
	Version     int64       `json:"version"`
	TraceParent string      `json:"trace_parent,omitempty"`
	CreatedAt   time.Time   `json:"created_at"`
	AsOf        time.Time   `json:"as_of"`
	Events      []eventView `json:"events"`
}

type eventView struct {
	EventID          uuid.UUID         `json:"event_id"`
	EventType        string            `json:"event_type"`
	AggregateVersion int64             `json:"aggregate_version"`
	State            engine.EventState `json:"state"`
	OccurredAt       time.Time         `json:"occurred_at"`
	Attempts         int               `json:"attempts"`
	NextAttemptAt    time.Time         `json:"next_attempt_at,omitzero"`
	LeasedBy         uuid.UUID         `json:"leased_by,omitzero"`
	LeasedUntil      time.Time         `json:"leased_until,omitzero"`
	PublishedAt      time.Time         `json:"published_at,omitzero"`
	DeadLetteredAt   time.Time         `json:"dead_lettered_at,omitzero"`
	LastError        string            `json:"last_error,omitempty"`
	AppliedBy        []appliedView     `json:"applied_by"`
}

type appliedView struct {
	Consumer    string    `json:"consumer"`
	ProcessedAt time.Time `json:"processed_at"`
}

func viewPayment(st engine.PaymentStatus) paymentView {
	v := paymentView{PaymentID: st.PaymentID, ClientID: st.ClientID, AmountCents: st.AmountCents, Currency: st.Currency,
		Version: st.Version, TraceParent: st.TraceParent, CreatedAt: st.CreatedAt.UTC(), AsOf: st.At.UTC(), Events: []eventView{}}
	for _, e := range st.Events {
		ev := eventView{EventID: e.EventID, EventType: e.Type, AggregateVersion: e.AggregateVersion, State: e.State,
			OccurredAt: e.OccurredAt.UTC(), Attempts: e.Attempts, LeasedBy: e.LeasedBy, LeasedUntil: utc(e.LeasedUntil),
			PublishedAt: utc(e.PublishedAt), DeadLetteredAt: utc(e.DeadLetteredAt), LastError: e.LastError, AppliedBy: []appliedView{}}
		if e.State == engine.EventPending || e.State == engine.EventLeaseExpired {
			// When a relay may take it next; for the other states it is history.
			ev.NextAttemptAt = utc(e.NextAttemptAt)
		}
		for _, a := range e.AppliedBy {
			ev.AppliedBy = append(ev.AppliedBy, appliedView{Consumer: a.Consumer, ProcessedAt: a.ProcessedAt.UTC()})
		}
		v.Events = append(v.Events, ev)
	}
	return v
}

// utc keeps the zero time zero, so omitzero leaves it out.
func utc(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC()
}
