package sim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/outboxlab/outboxlab/engine"
)

// Oracle is the guarantee check of one pipeline, recomputed from the real
// database and the broker's log: the property outboxlab teaches is that the
// broker may deliver a message many times while each consumer's effect
// happens exactly once, and no committed payment goes without its effects.
type Oracle struct {
	Pipeline            string
	Payments            int64 // committed payments
	OutboxRows          int64
	Published           int64 // outbox rows marked published
	Publishes           int64 // messages the broker accepted (a republish counts again)
	Deliveries          int64
	DuplicatesDelivered int64 // deliveries beyond the first, per consumer and message
	DuplicatesIgnored   int64 // deliveries the inbox recognised
	Effects             int64 // ledger entries + notifications
	LedgerEntries       int64
	Notifications       int64
	LostEvents          int64 // committed payments a consumer never heard of, with nothing left in flight
	PhantomEffects      int64 // effects for payments that do not exist
	DuplicateEffects    int64 // effects applied more than once for one message and consumer
	DeadLettered        int64
	Pending             int64 // outbox rows not yet published nor dead-lettered
	MaxAttempts         int64
	VersionGaps         int64
	LostLeases          int64
	DoubleLeases        int64
	Crashes             int64
	Conflicts           int64 // 422 answers to a reused key with another body
	Replays             int64 // stored responses returned for a repeated key
	OldestPendingAge    time.Duration

	// Examples name a message id for each violation, so the UI can point at it.
	LostExample, PhantomExample, DuplicateExample string
}

// Figure returns a figure by its scene name (scenes.Figures).
func (o Oracle) Figure(name string) (int64, error) {
	switch name {
	case "payments":
		return o.Payments, nil
	case "outbox_rows":
		return o.OutboxRows, nil
	case "published":
		return o.Published, nil
	case "publishes":
		return o.Publishes, nil
	case "deliveries":
		return o.Deliveries, nil
	case "duplicates_delivered":
		return o.DuplicatesDelivered, nil
	case "duplicates_ignored":
		return o.DuplicatesIgnored, nil
	case "effects":
		return o.Effects, nil
	case "ledger_entries":
		return o.LedgerEntries, nil
	case "notifications":
		return o.Notifications, nil
	case "lost_events":
		return o.LostEvents, nil
	case "phantom_effects":
		return o.PhantomEffects, nil
	case "duplicate_effects":
		return o.DuplicateEffects, nil
	case "dead_lettered":
		return o.DeadLettered, nil
	case "pending":
		return o.Pending, nil
	case "max_attempts":
		return o.MaxAttempts, nil
	case "version_gaps":
		return o.VersionGaps, nil
	case "lost_leases":
		return o.LostLeases, nil
	case "double_leases":
		return o.DoubleLeases, nil
	case "crashes":
		return o.Crashes, nil
	case "conflicts":
		return o.Conflicts, nil
	case "replays":
		return o.Replays, nil
	}
	return 0, fmt.Errorf("unknown figure %q", name)
}

// Oracles computes the oracle of every pipeline.
func (s *Sim) Oracles(ctx context.Context) ([]Oracle, error) {
	s.op.Lock()
	defer s.op.Unlock()
	return s.oracles(ctx)
}

func (s *Sim) oracles(ctx context.Context) ([]Oracle, error) {
	var out []Oracle
	for _, p := range s.pipes {
		o, err := p.oracle(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s oracle: %w", p.Kind, err)
		}
		out = append(out, o)
	}
	return out, nil
}

// sqlOracle reads every database figure in one round trip. A payment is
// lost for a consumer when that consumer has no effect for it and nothing
// that could still bring one is pending in the outbox; the broker's side
// (queued or unACKed deliveries) is checked in Go.
const sqlOracle = `
SELECT
  (SELECT count(*) FROM payments),
  (SELECT count(*) FROM outbox_messages),
  (SELECT count(*) FROM outbox_messages WHERE published_at IS NOT NULL),
  (SELECT count(*) FROM ledger_entries),
  (SELECT count(*) FROM notifications),
  (SELECT count(*) FROM outbox_messages WHERE dead_lettered_at IS NOT NULL),
  (SELECT count(*) FROM outbox_messages WHERE published_at IS NULL AND dead_lettered_at IS NULL),
  (SELECT COALESCE(max(attempts), 0) FROM outbox_messages),
  (SELECT min(occurred_at) FROM outbox_messages WHERE published_at IS NULL AND dead_lettered_at IS NULL),
  (SELECT count(*) FROM (SELECT payment_id FROM ledger_entries UNION ALL SELECT payment_id FROM notifications) e
     WHERE NOT EXISTS (SELECT 1 FROM payments p WHERE p.id = e.payment_id)),
  (SELECT min(e.message_id::text) FROM (SELECT message_id, payment_id FROM ledger_entries UNION ALL SELECT message_id, payment_id FROM notifications) e
     WHERE NOT EXISTS (SELECT 1 FROM payments p WHERE p.id = e.payment_id)),
  (SELECT COALESCE(sum(n - 1), 0) FROM (
     SELECT count(*) AS n FROM ledger_entries GROUP BY consumer_name, message_id HAVING count(*) > 1
     UNION ALL
     SELECT count(*) FROM notifications GROUP BY consumer_name, message_id HAVING count(*) > 1) d),
  (SELECT min(message_id::text) FROM (
     SELECT message_id FROM ledger_entries GROUP BY consumer_name, message_id HAVING count(*) > 1
     UNION ALL
     SELECT message_id FROM notifications GROUP BY consumer_name, message_id HAVING count(*) > 1) d)`

// sqlMissing lists, per consumer effect table, payments without an effect
// whose event is not pending in the outbox.
const sqlMissing = `
SELECT p.id::text, 'accounting' FROM payments p
 WHERE NOT EXISTS (SELECT 1 FROM ledger_entries l WHERE l.payment_id = p.id)
   AND NOT EXISTS (SELECT 1 FROM outbox_messages o WHERE o.aggregate_id = p.id::text AND o.published_at IS NULL)
UNION ALL
SELECT p.id::text, 'notifications' FROM payments p
 WHERE NOT EXISTS (SELECT 1 FROM notifications n WHERE n.payment_id = p.id)
   AND NOT EXISTS (SELECT 1 FROM outbox_messages o WHERE o.aggregate_id = p.id::text AND o.published_at IS NULL)
ORDER BY 1, 2`

func (p *Pipeline) oracle(ctx context.Context) (Oracle, error) {
	o := Oracle{Pipeline: p.Kind}
	var oldest *time.Time
	var phantomEx, dupEx *string
	err := p.pool.QueryRow(ctx, sqlOracle).Scan(&o.Payments, &o.OutboxRows, &o.Published, &o.LedgerEntries, &o.Notifications,
		&o.DeadLettered, &o.Pending, &o.MaxAttempts, &oldest, &o.PhantomEffects, &phantomEx, &o.DuplicateEffects, &dupEx)
	if err != nil {
		return o, err
	}
	o.Effects = o.LedgerEntries + o.Notifications
	if oldest != nil {
		o.OldestPendingAge = p.sim.clock.Peek().Sub(*oldest)
	}
	if phantomEx != nil {
		o.PhantomExample = *phantomEx
	}
	if dupEx != nil {
		o.DuplicateExample = *dupEx
	}

	st := p.broker.Stats()
	o.Publishes, o.Deliveries = int64(st.Published), int64(st.Delivered)
	for _, byID := range st.DeliveriesByID {
		for _, n := range byID {
			if n > 1 {
				o.DuplicatesDelivered += int64(n - 1)
			}
		}
	}
	inFlight := p.inFlightPayments()
	rows, err := p.pool.Query(ctx, sqlMissing)
	if err != nil {
		return o, err
	}
	lost := map[string]bool{}
	for rows.Next() {
		var pay, consumer string
		if err := rows.Scan(&pay, &consumer); err != nil {
			rows.Close()
			return o, err
		}
		if inFlight[consumer][pay] || p.deadLettered(pay) {
			continue
		}
		if !lost[pay] && o.LostExample == "" {
			o.LostExample = pay
		}
		lost[pay] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return o, err
	}
	o.LostEvents = int64(len(lost))

	c := p.counters
	o.DuplicatesIgnored = c.DuplicatesIgnored.Load()
	o.VersionGaps = c.VersionGaps.Load()
	o.LostLeases = c.LostLeases.Load()
	o.DoubleLeases = int64(p.doubles)
	for _, r := range p.runners {
		o.Crashes += int64(r.crashes)
	}
	for _, rp := range p.replies {
		switch {
		case errors.Is(rp.err, engine.ErrIdempotencyConflict):
			o.Conflicts++
		case rp.err == nil && rp.resp.Replayed:
			o.Replays++
		}
	}
	return o, nil
}

// inFlightPayments lists, per consumer, the payments whose message the
// broker still holds for it (queued or delivered and not ACKed): those
// effects may still happen.
func (p *Pipeline) inFlightPayments() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, u := range p.broker.Unsettled() {
		pay := paymentOf(u.Message)
		if out[u.Subscription] == nil {
			out[u.Subscription] = map[string]bool{}
		}
		out[u.Subscription][pay] = true
	}
	return out
}

func paymentOf(m engine.Message) string { return m.AggregateID }

func (p *Pipeline) deadLettered(payment string) bool {
	var n int
	_ = p.pool.QueryRow(context.Background(), `SELECT count(*) FROM outbox_messages WHERE aggregate_id = $1 AND dead_lettered_at IS NOT NULL`, payment).Scan(&n)
	return n > 0
}
