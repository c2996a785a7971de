package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Faults a Hook returns to make an actor fail at a checkpoint.
var (
	// ErrCrash makes the actor die where it stands: its socket is closed
	// without COMMIT and it returns an error wrapping ErrCrash.
	ErrCrash = errors.New("actor crashed")
	// ErrFailCommit, returned before a COMMIT, makes the actor roll back instead.
	ErrFailCommit = errors.New("fail the next commit")
	// ErrLoseCommitReply, returned before a COMMIT, sends the COMMIT and drops
	// the connection before its reply is read.
	ErrLoseCommitReply = errors.New("lose the commit reply")
)

// Outcomes an actor reports.
var (
	// ErrCommitFailed means the transaction was rolled back instead of committed.
	ErrCommitFailed = errors.New("commit failed")
	// ErrAmbiguousCommit means COMMIT was sent but its reply never came: the
	// transaction may or may not have committed.
	ErrAmbiguousCommit = errors.New("commit outcome unknown")
	// ErrIdempotencyConflict means an Idempotency-Key was reused with another body.
	ErrIdempotencyConflict = errors.New("idempotency key reused with a different request")
	// ErrLostLease means the row's lease belongs to another worker now: the
	// relay did not touch it.
	ErrLostLease = errors.New("lease lost to another worker")
	// ErrBrokerDown means the broker refused to publish or deliver.
	ErrBrokerDown = errors.New("broker is down")
	// ErrStaleAck means the acknowledged delivery is no longer outstanding (its
	// ack timeout passed and it was handed out again).
	ErrStaleAck = errors.New("delivery no longer outstanding")
	// ErrUnknownSubscription means no subscription has that name.
	ErrUnknownSubscription = errors.New("unknown subscription")
	// ErrInvalidRequest means a payment request failed validation.
	ErrInvalidRequest = errors.New("invalid payment request")
)

// Driver-level outcomes, mapped from PostgreSQL errors by mapDBError.
var (
	// ErrNotFound is pgx.ErrNoRows.
	ErrNotFound = errors.New("not found")
	// ErrDuplicate is a unique violation (SQLSTATE 23505).
	ErrDuplicate = errors.New("duplicate key")
	// ErrConstraint is another integrity constraint violation (class 23).
	ErrConstraint = errors.New("constraint violated")
	// ErrSerialization is a serialization failure or deadlock (40001, 40P01): retry the unit.
	ErrSerialization = errors.New("serialization failure")
	// ErrConnection means the connection is unusable (closed, dropped, or the server shut down).
	ErrConnection = errors.New("database connection lost")
)

// mapDBError is the one place driver errors become engine sentinels. The
// original error stays in the chain; context errors are returned unchanged so
// cancellation is recognisable with errors.Is.
func mapDBError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == "23505":
			return fmt.Errorf("%w: %w", ErrDuplicate, err)
		case pgErr.Code == "40001" || pgErr.Code == "40P01":
			return fmt.Errorf("%w: %w", ErrSerialization, err)
		case len(pgErr.Code) == 5 && pgErr.Code[:2] == "23":
			return fmt.Errorf("%w: %w", ErrConstraint, err)
		case len(pgErr.Code) == 5 && (pgErr.Code[:2] == "08" || pgErr.Code[:2] == "57"):
			// connection exception, operator intervention (admin/crash shutdown)
			return fmt.Errorf("%w: %w", ErrConnection, err)
		}
		return err
	}
	var connErr *pgconn.ConnectError
	var netErr net.Error
	if errors.Is(err, pgconn.ErrConnClosed) || errors.As(err, &connErr) || errors.As(err, &netErr) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || pgconn.SafeToRetry(err) {
		return fmt.Errorf("%w: %w", ErrConnection, err)
	}
	return err
}
