package httpapi

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/outboxlab/outboxlab/engine"
)

// Backend is what the handlers call: the real writer and database (DBBackend),
// or a simulator that makes each request the api actor's work.
//
// The handlers map a Backend's errors to statuses by errors.Is (see
// writeBackendError): ErrResetConnection is no response at all; engine's
// ErrIdempotencyConflict is 422, ErrInvalidRequest 400, ErrNotFound 404,
// ErrDuplicate 409; ErrAmbiguousCommit, ErrConnection, ErrCommitFailed and
// ErrSerialization are 503 with Retry-After; anything else is 500.
type Backend interface {
	// CreatePayment runs the writer for req. req.TraceParent is a valid W3C
	// traceparent or empty (none came, or an invalid one was ignored): then
	// the backend starts a trace. A replayed response has Replayed set.
	CreatePayment(ctx context.Context, req engine.PaymentRequest) (engine.PaymentResponse, error)
	// Payment reads a payment and where its events are.
	Payment(ctx context.Context, id uuid.UUID) (engine.PaymentStatus, error)
}

// ErrResetConnection, returned by a Backend (or wrapped), makes the handler
// close the client's connection without a response: what a client sees when
// the API process dies, e.g. a crash at api.committed after the payment
// committed. The client cannot know the outcome; its retry with the same
// Idempotency-Key finds the record (S21).
var ErrResetConnection = errors.New("reset the client's connection without a response")
