package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/trace"
)

// StepBatch takes up to BatchSize available deliveries and handles them with
// HandleBatch; with none available it returns no results. A BatchReceiver
// hands them out with one request.
func (c *Consumer) StepBatch(ctx context.Context) ([]ConsumeResult, error) {
	n := max(c.cfg.BatchSize, 1)
	if br, ok := c.cfg.Subscriber.(BatchReceiver); ok {
		ds, err := br.ReceiveBatch(ctx, c.cfg.Subscription, n)
		if len(ds) == 0 {
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c.name, err)
			}
			return nil, nil
		}
		return c.HandleBatch(ctx, ds) // as below: what was received is handled
	}
	var ds []Delivery // allocated at the first delivery: an idle poll costs nothing
	for len(ds) < n {
		d, ok, err := c.cfg.Subscriber.Receive(ctx, c.cfg.Subscription)
		if err != nil {
			if len(ds) > 0 {
				break // handle what was received; the error shows again next time
			}
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		if !ok {
			break
		}
		if ds == nil {
			ds = make([]Delivery, 0, n)
		}
		ds = append(ds, d)
	}
	if len(ds) == 0 {
		return nil, nil
	}
	return c.HandleBatch(ctx, ds)
}

// batchItem is one delivery of a batch and what became of it.
type batchItem struct {
	d   Delivery
	p   PaymentPayload
	res ConsumeResult
}

// HandleBatch is Handle for many deliveries in ONE transaction: the same
// guarantees (inbox marker, version check, effect, commit, then ACK), one
// set-based statement per step instead of one per delivery. Deliveries
// refused for their version have their markers removed inside the
// transaction and are NACKed (gap) or rejected (stale) after it. The wrong
// strategies (select-then-insert, trace-id) have no batch form, nor has
// parking (ParkGaps: a gap filled must apply what waited for it, and an
// event parked by one path must be found by the other): their deliveries
// are handled one by one. With tracing on, the transaction is
// one span linked to every delivery's context, and each delivery's ACK
// (NACK, reject) a child span carrying its outcome.
func (c *Consumer) HandleBatch(ctx context.Context, ds []Delivery) (results []ConsumeResult, err error) {
	if c.cfg.Strategy != StrategyInbox || c.cfg.ParkGaps {
		out := make([]ConsumeResult, 0, len(ds))
		for _, d := range ds {
			res, err := c.Handle(ctx, d)
			out = append(out, res)
			if err != nil {
				return out, err
			}
		}
		return out, nil
	}
	if c.tr.on() && len(ds) > 0 {
		var s trace.Span
		ctx, s = c.startProcess(ctx, ds)
		c.spans = []trace.Span{s}
		defer func() {
			c.spans = nil
			c.endProcess(s, results, len(ds) > 1, err)
		}()
	}
	return c.handleBatch(ctx, ds)
}

func (c *Consumer) handleBatch(ctx context.Context, ds []Delivery) ([]ConsumeResult, error) {
	items := make([]*batchItem, 0, len(ds))
	var results []ConsumeResult
	for _, d := range ds {
		it := &batchItem{d: d, res: ConsumeResult{MessageID: d.ID, Delivery: d.Count}}
		if err := json.Unmarshal(d.Payload, &it.p); err != nil || it.p.PaymentID == uuid.Nil {
			it.res.Outcome = OutcomeParked
			if rerr := c.settle(ctx, opReject, d, OutcomeParked, 0, "undecodable payload"); rerr != nil {
				return nil, fmt.Errorf("%s: reject %s: %w", c.name, d.ID, rerr)
			}
			results = append(results, it.res)
			continue
		}
		it.res.PaymentID = it.p.PaymentID
		items = append(items, it)
	}
	if len(items) == 0 {
		return results, nil
	}
	db, err := c.conn(ctx)
	if err != nil {
		return results, fmt.Errorf("%s: %w", c.name, err)
	}
	now := c.clock.Now()
	if err := c.begin(ctx, db); err != nil {
		return results, fmt.Errorf("%s: %w", c.name, err)
	}
	applied, refused, err := c.batchInTx(ctx, db, items, now)
	if err != nil {
		err = c.abort(ctx, err)
		if errors.Is(err, ErrSerialization) {
			// Lost a race on a position: hand everything back at once.
			for _, it := range items {
				_ = c.settle(ctx, opNack, it.d, "", 0, "")
			}
		}
		return results, err
	}
	ids := make([]uuid.UUID, len(items))
	for i, it := range items {
		ids[i] = it.d.ID
	}
	ev := Event{Checkpoint: ConsumerEffectApplied, MessageIDs: ids, Rows: int64(len(applied)),
		Detail: Say("%d effects, %d duplicates, %d refused for their version: not committed", len(applied), len(items)-len(applied)-len(refused), len(refused))}
	if err := c.finish(ctx, ConsumerEffectApplied, c.checkpoint(ctx, ev)); err != nil {
		return results, fmt.Errorf("%s: batch of %d: %w", c.name, len(items), err)
	}
	c.cfg.Counters.add(&c.cfg.Counters.Processed, len(applied))
	after := c.clock.Now()
	for _, it := range applied {
		if !it.d.PublishedAt.IsZero() {
			c.cfg.Counters.observe(&c.cfg.Counters.PublishedToProcessed, after.Sub(it.d.PublishedAt))
		}
	}
	ev = Event{Checkpoint: ConsumerCommitted, Statement: stmtCommit, MessageIDs: ids, Detail: Say("batch durable; not ACKed yet")}
	if err := c.stopAt(ctx, ConsumerCommitted, c.checkpoint(ctx, ev)); err != nil {
		return results, err
	}
	var ackErr error
	acked := c.ackBatch(ctx, items)
	for _, it := range items {
		switch it.res.Outcome {
		case OutcomeVersionGap:
			err = c.settle(ctx, opNack, it.d, it.res.Outcome, c.cfg.GapRetryDelay, "")
		case OutcomeParked:
			err = c.settle(ctx, opReject, it.d, it.res.Outcome, 0, fmt.Sprintf("stale version %d (applied %d)", it.res.Got, it.res.Expected-1))
		default:
			if e, ok := acked[it]; ok {
				err = e
				break
			}
			err = c.settle(ctx, opAck, it.d, it.res.Outcome, 0, "")
		}
		if err != nil && !errors.Is(err, ErrStaleAck) {
			it.res.AckErr = err
			ackErr = cmp.Or(ackErr, err)
		}
		results = append(results, it.res)
	}
	if ackErr != nil {
		return results, fmt.Errorf("%s: settle after commit (redeliveries will be duplicates): %w", c.name, ackErr)
	}
	ev = Event{Checkpoint: ConsumerAcked, MessageIDs: ids, Detail: Say("%d deliveries settled", len(items))}
	return results, c.stopAt(ctx, ConsumerAcked, c.checkpoint(ctx, ev))
}

// ackBatch ACKs, in one call, the items to be ACKed when the subscriber is
// a BatchAcker and nothing traces the ACKs; it returns each one's answer
// (none: settle them one by one).
func (c *Consumer) ackBatch(ctx context.Context, items []*batchItem) map[*batchItem]error {
	ba, ok := c.cfg.Subscriber.(BatchAcker)
	if !ok || c.tr.on() {
		return nil
	}
	var its []*batchItem
	var ds []Delivery
	for _, it := range items {
		if it.res.Outcome != OutcomeVersionGap && it.res.Outcome != OutcomeParked {
			its, ds = append(its, it), append(ds, it.d)
		}
	}
	if len(ds) < 2 {
		return nil
	}
	errs := ba.AckBatch(ctx, ds)
	out := make(map[*batchItem]error, len(its))
	for i, it := range its {
		out[it] = errs[i]
	}
	return out
}

// batchInTx runs the batch's statements in the open transaction and returns
// the items whose effect was applied and those refused for their version.
func (c *Consumer) batchInTx(ctx context.Context, db *pgx.Conn, items []*batchItem, now time.Time) (applied, refused []*batchItem, err error) {
	ids := make([]uuid.UUID, len(items))
	for i, it := range items {
		ids[i] = it.d.ID
	}
	var fresh []uuid.UUID
	if err := c.query(ctx, db, stmtInsertInboxBatch, collectInto(&fresh, pgx.RowTo[uuid.UUID]), c.consumer, ids, now); err != nil {
		return nil, nil, err
	}
	isFresh := make(map[uuid.UUID]bool, len(fresh))
	for _, id := range fresh {
		isFresh[id] = true
	}
	var candidates []*batchItem
	for _, it := range items {
		if isFresh[it.d.ID] {
			delete(isFresh, it.d.ID) // later copies in the batch are duplicates
			candidates = append(candidates, it)
			continue
		}
		it.res.Outcome = OutcomeDuplicate
	}
	dups := len(items) - len(candidates)
	c.cfg.Counters.duplicates(c.cfg.Name, dups)
	ev := Event{Checkpoint: ConsumerInboxInserted, Rows: int64(len(fresh)), MessageIDs: ids,
		Detail: Say("%d new inbox markers, %d duplicates", len(fresh), dups)}
	if err := c.stopAt(ctx, ConsumerInboxInserted, c.checkpoint(ctx, ev)); err != nil {
		return nil, nil, err
	}
	if len(candidates) == 0 {
		return nil, nil, nil
	}
	applied, refused = candidates, nil
	if !c.cfg.IgnoreVersions {
		if applied, refused, err = c.batchVersions(ctx, db, candidates); err != nil {
			return nil, nil, err
		}
	}
	if err := c.batchEffects(ctx, db, applied, now); err != nil {
		return nil, nil, err
	}
	for _, it := range applied {
		it.res.Outcome = OutcomeApplied
	}
	return applied, refused, nil
}

// batchVersions applies the version policy of Consumer to a batch: events of
// one aggregate are taken in version order, each must be the next one.
func (c *Consumer) batchVersions(ctx context.Context, db *pgx.Conn, items []*batchItem) (ok, refused []*batchItem, err error) {
	aggs := make([]string, 0, len(items))
	for _, it := range items {
		aggs = append(aggs, it.d.AggregateID)
	}
	slices.Sort(aggs)
	aggs = slices.Compact(aggs)
	last := map[string]int64{}
	read := map[string]bool{} // aggregates whose row exists (and is now locked)
	err = c.query(ctx, db, stmtReadPositionsBatch, func(rows pgx.Rows) error {
		for rows.Next() {
			var agg string
			var v int64
			if err := rows.Scan(&agg, &v); err != nil {
				return err
			}
			last[agg] = v
			read[agg] = true
		}
		return nil
	}, c.consumer, aggs)
	if err != nil {
		return nil, nil, err
	}
	ordered := slices.Clone(items)
	slices.SortStableFunc(ordered, func(a, b *batchItem) int {
		return cmp.Or(cmp.Compare(a.d.AggregateID, b.d.AggregateID), cmp.Compare(a.d.AggregateVersion, b.d.AggregateVersion))
	})
	var refusedIDs []uuid.UUID
	for _, it := range ordered {
		want := last[it.d.AggregateID] + 1
		it.res.Expected, it.res.Got = want, it.d.AggregateVersion
		switch {
		case it.d.AggregateVersion == want:
			last[it.d.AggregateID] = want
			ok = append(ok, it)
			continue
		case it.d.AggregateVersion < want:
			it.res.Outcome = OutcomeParked
		default:
			it.res.Outcome = OutcomeVersionGap
		}
		refused = append(refused, it)
		refusedIDs = append(refusedIDs, it.d.ID)
	}
	if len(refused) > 0 {
		c.cfg.Counters.add(&c.cfg.Counters.VersionGaps, len(refused))
		if _, err := c.exec(ctx, db, stmtDeleteInboxMessages, c.consumer, refusedIDs); err != nil {
			return nil, nil, err
		}
		ev := Event{Checkpoint: ConsumerVersionGap, MessageIDs: refusedIDs, Rows: int64(len(refused)),
			Detail: Say("%d deliveries out of order: not applied", len(refused))}
		if err := c.stopAt(ctx, ConsumerVersionGap, c.checkpoint(ctx, ev)); err != nil {
			return nil, nil, err
		}
	}
	if len(ok) == 0 {
		return ok, refused, nil
	}
	applied := make(map[string]bool, len(ok))
	for _, it := range ok {
		applied[it.d.AggregateID] = true
	}
	var advAggs []string
	var advVers []int64
	var advExisting []bool
	for _, agg := range aggs {
		if v, moved := last[agg]; moved && applied[agg] {
			advAggs, advVers, advExisting = append(advAggs, agg), append(advVers, v), append(advExisting, read[agg])
		}
	}
	var advanced int64
	err = c.queryRow(ctx, db, stmtAdvancePositionsBatch, c.consumer, advAggs, advVers, advExisting).Scan(&advanced)
	if errors.Is(err, ErrDuplicate) {
		// Another consumer inserted the position of an aggregate this batch
		// saw none for: the same lost race as a position moved first.
		return nil, nil, fmt.Errorf("a concurrent consumer created a position first: %w: %w", ErrSerialization, err)
	}
	if err != nil {
		return nil, nil, err
	}
	if advanced != int64(len(advAggs)) {
		return nil, nil, fmt.Errorf("%s: a concurrent consumer moved a position first: %w", stmtAdvancePositionsBatch.Name, ErrSerialization)
	}
	return ok, refused, nil
}

func (c *Consumer) batchEffects(ctx context.Context, db *pgx.Conn, items []*batchItem, now time.Time) error {
	var msgIDs, payIDs []uuid.UUID
	var amounts []int64
	var currencies, bodies []string
	for _, it := range items {
		if it.d.Type != EventPaymentCreated {
			continue
		}
		p := it.p
		msgIDs, payIDs = append(msgIDs, it.d.ID), append(payIDs, p.PaymentID)
		amounts, currencies = append(amounts, p.AmountCents), append(currencies, p.Currency)
		bodies = append(bodies, fmt.Sprintf("Payment %s of %d.%02d %s received", p.PaymentID, p.AmountCents/100, p.AmountCents%100, p.Currency))
	}
	if len(msgIDs) == 0 {
		return nil
	}
	var err error
	if c.cfg.Effect == EffectNotification {
		_, err = c.exec(ctx, db, stmtInsertNotificationsBatch, c.consumer, msgIDs, payIDs, bodies, now)
	} else {
		_, err = c.exec(ctx, db, stmtInsertLedgerBatch, c.consumer, msgIDs, payIDs, amounts, currencies, now)
	}
	return err
}
