package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// stmtPaymentStatus is declared here rather than in statement.go's list so
// the read lives beside the only code that runs it; load registers it the same way.
var stmtPaymentStatus = load("payment_status")

// EventState is where an outbox row is on its way to the broker.
type EventState string

// The states of an outbox row, as payment_status.sql names them.
const (
	// EventPending waits for a relay: ready now, or at NextAttemptAt after a failed publish.
	EventPending EventState = "pending"
	// EventLeased is held by a relay (LeasedBy) whose lease runs until LeasedUntil.
	EventLeased EventState = "leased"
	// EventLeaseExpired was leased by a relay that did not mark it in time
	// (crashed, stalled): any relay's next claim takes it over (S10).
	EventLeaseExpired EventState = "lease_expired"
	// EventPublished reached the broker and was marked (S12).
	EventPublished EventState = "published"
	// EventDeadLettered failed its last attempt and waits for a requeue (S15).
	EventDeadLettered EventState = "dead_lettered"
)

// PaymentStatus is one payment and where each of its events is, read at At.
type PaymentStatus struct {
	PaymentID   uuid.UUID
	ClientID    string
	AmountCents int64
	Currency    string
	// Version is the payment's aggregate version: 1, plus one per capture.
	Version     int64
	TraceParent string
	CreatedAt   time.Time
	// At is the clock's time the lease states were judged at.
	At time.Time
	// Events are the outbox rows of the payment's aggregate in version order;
	// none for a payment the naive writer made, or once retention pruned them.
	Events []EventStatus
}

// EventStatus is one outbox row of a payment and the consumers that applied it.
type EventStatus struct {
	EventID          uuid.UUID
	Type             string
	AggregateVersion int64
	State            EventState
	OccurredAt       time.Time
	// Attempts counts claims; NextAttemptAt is when a relay may claim it again.
	Attempts      int
	NextAttemptAt time.Time
	// LeasedBy is the lease owner's worker id (the relay's WorkerID), zero
	// when no lease is recorded; LeasedUntil is when that lease ends.
	LeasedBy       uuid.UUID
	LeasedUntil    time.Time
	PublishedAt    time.Time
	DeadLetteredAt time.Time
	LastError      string
	// AppliedBy lists the consumers whose inbox holds the event, by name.
	AppliedBy []Applied
}

// Applied is one consumer's inbox row for an event.
type Applied struct {
	Consumer    string
	ProcessedAt time.Time
}

// ReadPaymentStatus reads payment id and its events on conn, judging leases
// at now. An unknown id is an error wrapping ErrNotFound.
func ReadPaymentStatus(ctx context.Context, conn *pgx.Conn, id uuid.UUID, now time.Time) (PaymentStatus, error) {
	st := PaymentStatus{At: now}
	found := false
	err := queryOn(ctx, conn, stmtPaymentStatus, func(rows pgx.Rows) error {
		for rows.Next() {
			ev, hasEvent, err := scanPaymentStatus(rows, &st)
			if err != nil {
				return err
			}
			found = true
			if hasEvent {
				st.Events = append(st.Events, ev)
			}
		}
		return nil
	}, id, now, AggregatePayment)
	if err != nil {
		return PaymentStatus{}, fmt.Errorf("payment status %s: %w", id, err)
	}
	if !found {
		return PaymentStatus{}, fmt.Errorf("payment status %s: %w", id, ErrNotFound)
	}
	return st, nil
}

// scanPaymentStatus reads one row: the payment's columns into st (they repeat
// on every row) and the event's, hasEvent false when the LEFT JOIN found none.
func scanPaymentStatus(rows pgx.Rows, st *PaymentStatus) (EventStatus, bool, error) {
	var (
		trace, eventType, state, lastError                              *string
		eventID, lockID                                                 *uuid.UUID
		version                                                         *int64
		attempts                                                        *int32
		occurred, nextAttempt, lockedUntil, publishedAt, deadLetteredAt *time.Time
		consumers                                                       []string
		processed                                                       []time.Time
	)
	err := rows.Scan(&st.PaymentID, &st.ClientID, &st.AmountCents, &st.Currency, &st.Version, &trace, &st.CreatedAt,
		&eventID, &eventType, &version, &occurred, &attempts, &nextAttempt,
		&lockID, &lockedUntil, &publishedAt, &deadLetteredAt, &lastError, &state, &consumers, &processed)
	if err != nil {
		return EventStatus{}, false, err
	}
	st.TraceParent = deref(trace)
	if eventID == nil {
		return EventStatus{}, false, nil
	}
	ev := EventStatus{EventID: *eventID, Type: deref(eventType), AggregateVersion: deref(version), State: EventState(deref(state)),
		OccurredAt: deref(occurred), Attempts: int(deref(attempts)), NextAttemptAt: deref(nextAttempt),
		LeasedBy: deref(lockID), LeasedUntil: deref(lockedUntil), PublishedAt: deref(publishedAt),
		DeadLetteredAt: deref(deadLetteredAt), LastError: deref(lastError)}
	if len(consumers) != len(processed) {
		return EventStatus{}, false, fmt.Errorf("event %s: %d consumers, %d processed times", ev.EventID, len(consumers), len(processed))
	}
	for i, c := range consumers {
		ev.AppliedBy = append(ev.AppliedBy, Applied{Consumer: c, ProcessedAt: processed[i]})
	}
	return ev, true, nil
}

// deref reads a nullable column: NULL is the zero value.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
