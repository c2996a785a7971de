package engine

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// Event types and the aggregate the writer produces.
const (
	AggregatePayment     = "payment"
	EventPaymentCreated  = "PaymentCreated"
	EventPaymentCaptured = "PaymentCaptured"
	// TopicPayments is the topic payment events are published on.
	TopicPayments = "payments"
)

// Envelope is the event as stored in the outbox and carried by the broker (S4).
// ID is the deduplication identity: made once, kept by every retry and requeue.
// TraceParent links traces; it is never a deduplication key (S22).
type Envelope struct {
	ID               uuid.UUID       `json:"id"`
	AggregateType    string          `json:"aggregate_type"`
	AggregateID      string          `json:"aggregate_id"`
	AggregateVersion int64           `json:"aggregate_version"`
	Type             string          `json:"type"`
	SchemaVersion    int             `json:"schema_version"`
	OccurredAt       time.Time       `json:"occurred_at"`
	TraceParent      string          `json:"trace_parent,omitempty"`
	Payload          json.RawMessage `json:"payload"`
}

// PaymentPayload is the payload of payment events.
type PaymentPayload struct {
	PaymentID   uuid.UUID `json:"payment_id"`
	ClientID    string    `json:"client_id"`
	AmountCents int64     `json:"amount_cents"`
	Currency    string    `json:"currency"`
}

// Message is what the broker carries: the envelope plus transport metadata.
type Message struct {
	Envelope
	Topic string
	// Key partitions the topic (the aggregate id): with ordering on, one key
	// has at most one delivery in flight per subscription.
	Key string
	// Metadata is transport headers: "traceparent", "published_by".
	Metadata map[string]string
	// PublishedAt is set by the broker (on its clock) when it accepts the message.
	PublishedAt time.Time
}

// newEventID makes an event id: uuid v7, time-ordered, so the outbox's
// (occurred_at, id) index stays append-mostly.
func newEventID() uuid.UUID {
	return uuid.Must(uuid.NewV7())
}
