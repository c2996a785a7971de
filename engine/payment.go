package engine

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// PaymentRequest is one "create payment" call, as the HTTP layer decodes it.
type PaymentRequest struct {
	ClientID string
	// IdempotencyKey is the optional Idempotency-Key header (S3).
	IdempotencyKey string
	AmountCents    int64
	Currency       string
	// TraceParent is the W3C traceparent header; stored with the event (S22).
	TraceParent string
	// PaymentID and EventID, when set, are used instead of new ids: a caller
	// retrying one logical operation keeps the ids it made first (S21).
	PaymentID uuid.UUID
	EventID   uuid.UUID
}

// PaymentResponse is what the API answers; with an Idempotency-Key it is
// stored and replayed for a repeat of the same request.
type PaymentResponse struct {
	StatusCode  int       `json:"-"`
	PaymentID   uuid.UUID `json:"payment_id"`
	EventID     uuid.UUID `json:"event_id"`
	ClientID    string    `json:"client_id"`
	AmountCents int64     `json:"amount_cents"`
	Currency    string    `json:"currency"`
	CreatedAt   time.Time `json:"created_at"`
	// Replayed is true when the response is the stored one of an earlier request.
	Replayed bool `json:"-"`
}

// StatusCreated is the HTTP status of a created payment.
const StatusCreated = 201

// Validate checks the request the way the API would before touching the database.
func (r PaymentRequest) Validate() error {
	switch {
	case r.ClientID == "":
		return fmt.Errorf("%w: client id is required", ErrInvalidRequest)
	case r.AmountCents <= 0:
		return fmt.Errorf("%w: amount must be positive", ErrInvalidRequest)
	case utf8.RuneCountInString(r.Currency) != 3:
		return fmt.Errorf("%w: currency must be a 3-letter code", ErrInvalidRequest)
	case len(r.IdempotencyKey) > 255:
		return fmt.Errorf("%w: idempotency key longer than 255 bytes", ErrInvalidRequest)
	}
	return nil
}

// hash identifies the request body. The client id and key are the record's
// primary key and the traceparent is a header, so none of them is hashed.
func (r PaymentRequest) hash() []byte {
	body, _ := json.Marshal(struct {
		AmountCents int64  `json:"amount_cents"`
		Currency    string `json:"currency"`
	}{r.AmountCents, r.Currency})
	sum := sha256.Sum256(body)
	return sum[:]
}

// plan fixes the ids and envelope of one request before any transaction
// starts, so every retry of the unit writes the same ids.
type paymentPlan struct {
	req      PaymentRequest
	resp     PaymentResponse
	env      Envelope
	hash     []byte
	respJSON []byte
}

func planPayment(req PaymentRequest, now time.Time) (paymentPlan, error) {
	if err := req.Validate(); err != nil {
		return paymentPlan{}, err
	}
	if req.PaymentID == uuid.Nil {
		req.PaymentID = uuid.Must(uuid.NewV7())
	}
	if req.EventID == uuid.Nil {
		req.EventID = newEventID()
	}
	payload, err := json.Marshal(PaymentPayload{PaymentID: req.PaymentID, ClientID: req.ClientID, AmountCents: req.AmountCents, Currency: req.Currency})
	if err != nil {
		return paymentPlan{}, fmt.Errorf("encode payload: %w", err)
	}
	resp := PaymentResponse{StatusCode: StatusCreated, PaymentID: req.PaymentID, EventID: req.EventID, ClientID: req.ClientID,
		AmountCents: req.AmountCents, Currency: req.Currency, CreatedAt: now}
	respJSON, err := json.Marshal(resp)
	if err != nil {
		return paymentPlan{}, fmt.Errorf("encode response: %w", err)
	}
	return paymentPlan{
		req:  req,
		resp: resp,
		env: Envelope{ID: req.EventID, AggregateType: AggregatePayment, AggregateID: req.PaymentID.String(), AggregateVersion: 1,
			Type: EventPaymentCreated, SchemaVersion: 1, OccurredAt: now, TraceParent: req.TraceParent, Payload: payload},
		hash:     req.hash(),
		respJSON: respJSON,
	}, nil
}

// storedKey is an idempotency record read back.
type storedKey struct {
	hash       []byte
	paymentID  uuid.UUID
	eventID    uuid.UUID
	statusCode int32
	response   []byte
}

// replay turns a stored record into the answer for req: the stored response,
// or ErrIdempotencyConflict when the body differs.
func (k storedKey) replay(req PaymentRequest) (PaymentResponse, error) {
	if string(k.hash) != string(req.hash()) {
		return PaymentResponse{}, fmt.Errorf("client %s key %q (payment %s): %w", req.ClientID, req.IdempotencyKey, k.paymentID, ErrIdempotencyConflict)
	}
	var resp PaymentResponse
	if err := json.Unmarshal(k.response, &resp); err != nil {
		return PaymentResponse{}, fmt.Errorf("decode stored response: %w", err)
	}
	resp.StatusCode, resp.Replayed = int(k.statusCode), true
	return resp, nil
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
