package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// A pipelined relay (RelayConfig.Pipeline) keeps PostgreSQL and the broker
// busy at the same time while a backlog drains, with two connections:
//
//	db:  claim N ─────┐ claim N+1 (sent ahead) ┐ claim N+2 …
//	go:               publish N ────────────────┤ publish N+1 ───┐
//	aux:                          mark N (sent) ┘ … read   mark N+1 (sent) …
//
// The claim of batch N+1 is sent as soon as batch N is claimed (and full),
// before N is published; the marks of batch N are sent on the second
// connection after N is published and read back during step N+1. Nothing
// about the guarantees changes: every claim and mark is still its own short
// transaction, rows are still published only after their claim committed
// and marked only where this worker still holds the lease, and the next
// batch is published only after this one. What a crash leaves behind is
// what it always leaves: leases that expire (now up to two batches' worth)
// and published rows not yet marked, republished with the same id. A
// graceful stop (Flush) hands the batch claimed ahead back instead.
//
// Two claims of one relay never run at once, so one pipelined relay keeps
// PostgreSQL busy without what two relays cost each other: each claim of one
// walks the other's leased rows in the ready index (measured on two cores:
// two pipelined relays drain no faster than one).

// claimAhead is a claim sent and not read yet.
type claimAhead struct {
	conn             *pgx.Conn
	br               pgx.BatchResults
	sent, leaseUntil time.Time
}

// marksAhead is a mark sent and not read yet.
type marksAhead struct {
	conn  *pgx.Conn
	br    pgx.BatchResults
	asked []uuid.UUID
	sent  time.Time
}

// claimAhead sends the next claim on c and returns without waiting for it.
//
// It is sent with ctx's values but not its cancellation: pgx watches the
// context a batch was sent with until its results are read, and a ctx that
// ends with this step (a per-step timeout, Run's shutdown) would break the
// read in the next step or in Flush, leaving the batch leased and, for marks,
// published but unmarked. A relay that dies or is closed closes the
// connection, which ends any read in progress.
func (r *Relay) claimAhead(ctx context.Context, c *pgx.Conn) {
	now := r.clock.Now()
	leaseUntil := now.Add(r.cfg.Lease)
	r.ahead = &claimAhead{conn: c, br: r.sendClaim(context.WithoutCancel(ctx), c, now, leaseUntil), sent: now, leaseUntil: leaseUntil}
}

// takeClaim returns the batch claimed ahead, or claims one now, with when
// the claim was sent and the lease it wrote.
func (r *Relay) takeClaim(ctx context.Context, c *pgx.Conn) (msgs []ClaimedMessage, sent, leaseUntil time.Time, err error) {
	a := r.ahead
	r.ahead = nil
	if a == nil || a.conn != c {
		// Nothing ahead, or it was sent on a connection that has since died
		// (its rows keep their lease until it expires).
		now := r.clock.Now()
		leaseUntil := now.Add(r.cfg.Lease)
		msgs, err := r.claim(ctx, c, now, leaseUntil)
		return msgs, now, leaseUntil, err
	}
	msgs, err = r.readClaim(a.br)
	return msgs, a.sent, a.leaseUntil, err
}

// markConn returns the second connection with nothing in flight on it: the
// marks sent last are read (and reported) first.
func (r *Relay) markConn(ctx context.Context, res *RelayStepResult) (*pgx.Conn, error) {
	if err := r.settleMarks(ctx, res); err != nil {
		return nil, err
	}
	c, err := r.auxConn(ctx)
	if err != nil {
		return nil, fmt.Errorf("relay marks: %w", err)
	}
	return c, nil
}

// markAhead reads the previous batch's marks, then sends this batch's and
// returns without waiting for them.
func (r *Relay) markAhead(ctx context.Context, ids []uuid.UUID, res *RelayStepResult) error {
	c, err := r.markConn(ctx, res)
	if err != nil {
		return err
	}
	// Not bound to ctx's cancellation, for the reason claimAhead gives.
	r.marks = &marksAhead{conn: c, br: r.sendMark(context.WithoutCancel(ctx), c, ids), asked: ids, sent: r.spanNow()}
	return nil
}

// settleMarks reads the marks in flight, if any, and reports them.
func (r *Relay) settleMarks(ctx context.Context, res *RelayStepResult) error {
	m := r.marks
	r.marks = nil
	if m == nil {
		return nil
	}
	if m.conn != r.aux {
		return nil // that connection died with what it carried: the leases expire
	}
	out, err := r.readMark(m.br, m.asked)
	if err != nil {
		return err
	}
	out.sent = m.sent
	return r.reportMarked(ctx, out, res)
}

// dropAhead forgets what the relay had in flight or in hand when its
// connection is gone: those rows keep their lease until it expires.
func (r *Relay) dropAhead() {
	r.ahead, r.marks = nil, nil
	r.unmarked, r.unpublished = nil, nil
	clear(r.sent)
}
