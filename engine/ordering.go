package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Ordering is how relays keep one aggregate's events in order between them
// (S20). SKIP LOCKED spreads rows over relays for throughput and orders
// nothing between them: with two relays, version 2 of a payment can reach
// the broker before version 1.
type Ordering string

const (
	// OrderingNone is claim_batch: any ready row, by any relay. The consumer
	// is left to notice the gap (aggregate_version) and wait for the rest.
	OrderingNone Ordering = "none"
	// OrderingPartition gives each relay a lane: the aggregates whose hash
	// falls in it (claim_partition.sql). One relay per aggregate publishes
	// in order; a relay joining moves aggregates between lanes (a
	// rebalance), and the new owner waits for the old owner's lease on an
	// earlier version. Its cost: a lane is one relay's throughput, however
	// idle the others, and a stopped relay's lane waits for it.
	OrderingPartition Ordering = "partition"
	// OrderingOneInFlight lets any relay claim a row only once every
	// earlier version of its aggregate is published (claim_one_in_flight.sql).
	// Its cost: an aggregate moves one event per claim and publish, however
	// many relays run.
	OrderingOneInFlight Ordering = "one-in-flight"
)

// Orderings are the relay ordering policies, as help lists them.
var Orderings = []Ordering{OrderingNone, OrderingPartition, OrderingOneInFlight}

// ParseOrdering returns the ordering with that name; "" is OrderingNone.
func ParseOrdering(name string) (Ordering, error) {
	switch o := Ordering(name); o {
	case "":
		return OrderingNone, nil
	case OrderingNone, OrderingPartition, OrderingOneInFlight:
		return o, nil
	}
	return "", fmt.Errorf("unknown relay ordering %q (want %q, %q or %q)", name, OrderingNone, OrderingPartition, OrderingOneInFlight)
}

// claimStatement is the claim the relay's ordering runs.
func (r *Relay) claimStatement() *Statement {
	switch r.cfg.Ordering {
	case OrderingPartition:
		return stmtClaimPartition
	case OrderingOneInFlight:
		return stmtClaimOneInFlight
	}
	return stmtClaimBatch
}

// claimArgs are the claim's parameters: claim_batch's four, and for a
// partitioning relay the lanes and its lane.
func (r *Relay) claimArgs(now, leaseUntil time.Time) []any {
	args := []any{now, r.cfg.BatchSize, r.cfg.WorkerID, r.leaseArg(leaseUntil)}
	if r.cfg.Ordering == OrderingPartition {
		args = append(args, r.lanes, r.lane)
	}
	return args
}

// joinLanes makes a partitioning relay a member of the lanes (join_lanes.sql)
// and reads its lane, before each claim: another relay may have joined since
// the last one, and then the lanes were rebalanced. It says so in the
// claim's detail.
func (r *Relay) joinLanes(ctx context.Context, c *pgx.Conn) error {
	var lane, lanes int
	if err := r.queryRow(ctx, c, stmtJoinLanes, r.cfg.Name, r.clock.Now()).Scan(&lane, &lanes); err != nil {
		return fmt.Errorf("relay %w", err)
	}
	r.rebalanced = r.lanes != 0 && (lane != r.lane || lanes != r.lanes)
	r.lane, r.lanes = lane, lanes
	return nil
}

// laneDetail is what a partitioning relay's claim adds to its detail: its
// lane, and a rebalance when the lanes moved since its last claim.
func (r *Relay) laneDetail(d Phrase) Phrase {
	if r.cfg.Ordering != OrderingPartition {
		return d
	}
	if r.rebalanced {
		return Say("%s; lanes rebalanced: now lane %d of %d", d, r.lane, r.lanes)
	}
	return Say("%s; lane %d of %d", d, r.lane, r.lanes)
}

// reportHeldBack runs when an ordering claim leased nothing: if rows were
// ready all the same (count_held_back), the ordering held them back from
// this relay — the throughput it gives up — and the relay says so at
// relay.claimed, 0 rows. A relay with no ordering, or nothing ready, says
// nothing.
func (r *Relay) reportHeldBack(ctx context.Context, c *pgx.Conn, now time.Time) error {
	if r.cfg.Ordering != OrderingPartition && r.cfg.Ordering != OrderingOneInFlight {
		return nil
	}
	var n int64
	if err := r.queryRow(ctx, c, stmtCountHeldBack, now).Scan(&n); err != nil {
		return fmt.Errorf("relay %w", err)
	}
	if n == 0 {
		return nil
	}
	r.cfg.Counters.add(&r.cfg.Counters.HeldBack, 1)
	detail := Say("nothing it may take: %d ready event(s) wait for an earlier version of their aggregate", n)
	if r.cfg.Ordering == OrderingPartition {
		detail = Say("nothing in its lane: %d ready event(s) are in another lane or wait for an earlier version", n)
	}
	ev := Event{Checkpoint: RelayClaimed, Statement: r.claimStatement(), Detail: r.laneDetail(detail)}
	return r.stopAt(ctx, RelayClaimed, r.checkpoint(ctx, ev))
}
