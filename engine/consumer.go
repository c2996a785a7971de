package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/trace"
)

// Strategy is how a consumer decides a delivery is new.
type Strategy string

const (
	// StrategyInbox is the correct one (S16): the inbox primary key decides,
	// in the effect's transaction.
	StrategyInbox Strategy = "inbox"
	// StrategySelectThenInsert is the deliberately wrong one (S18): "if not
	// already processed, process". Its check is a SELECT on the effect table,
	// and under READ COMMITTED two concurrent deliveries both see no entry
	// (neither has committed), so both insert one. The effect table has no
	// unique key to stop them; the inbox marker it writes afterwards uses ON
	// CONFLICT DO NOTHING, so the second marker silently does nothing instead
	// of failing the transaction. It skips the version check too: it is the
	// "AlreadyProcessed(id) then Process(id)" code of the design, nothing more.
	StrategySelectThenInsert Strategy = "select-then-insert"
	// StrategyTraceID is the deliberately wrong one of S22: the inbox, right
	// in every way (the primary key decides, in the effect's transaction,
	// versions are checked) but for its key, which is the trace id the
	// delivery carries instead of the event id. A trace id is 16 bytes, so it
	// fits inbox_messages.message_id (a uuid) without complaint, and every
	// redelivery carries the same one, so real duplicates are absorbed and
	// a duplicate test passes. But a trace correlates, it does not
	// identify: it follows one request through every process it touches,
	// and one request can make several events. A payment and its capture
	// share a trace (the capture continues the payment's request), so the
	// capture's marker collides with the payment's: the inbox takes a new
	// event for a duplicate, commits and ACKs it, and its effect is
	// suppressed — silently, with no error, although the broker delivered
	// nothing twice. Only the event id, made once and kept by every retry,
	// says "the same event".
	StrategyTraceID Strategy = "trace-id"
)

// ParseStrategy returns the strategy with that name.
func ParseStrategy(name string) (Strategy, error) {
	switch s := Strategy(name); s {
	case StrategyInbox, StrategySelectThenInsert, StrategyTraceID:
		return s, nil
	}
	return "", fmt.Errorf("unknown consumer strategy %q (want %q, %q or %q)", name, StrategyInbox, StrategySelectThenInsert, StrategyTraceID)
}

// Effect is the business effect a consumer applies.
type Effect string

const (
	// EffectLedger inserts a ledger entry (accounting).
	EffectLedger Effect = "ledger"
	// EffectNotification inserts a notification (notifications).
	EffectNotification Effect = "notification"
)

// ConsumerConfig configures an inbox consumer.
type ConsumerConfig struct {
	// Name is the consumer name (inbox_messages.consumer_name) and the actor
	// name: "accounting", "notifications".
	Name string
	// Actor is the actor name in hook events; default Name. Several workers
	// of one consumer share Name (one inbox, one effect) and differ by Actor:
	// "accounting", "accounting-2".
	Actor        string
	Subscription string // broker subscription; default Name
	// Effect defaults to EffectNotification for "notifications", else EffectLedger.
	Effect     Effect
	Strategy   Strategy // default StrategyInbox
	Connect    Connect
	Subscriber Subscriber
	Clock      Clock
	Hook       Hook
	Counters   *Counters
	// GapRetryDelay is how long a delivery with a version gap waits before the
	// broker hands it out again; default 1s.
	GapRetryDelay time.Duration
	// IgnoreVersions skips the per-aggregate version check, for events that
	// carry no meaningful order: then the inbox alone deduplicates.
	IgnoreVersions bool
	// ParkGaps parks a delivery ahead of the next expected version instead
	// of NACKing it (S20, detect-and-park): in the consumer's transaction it
	// goes to parked_messages, and is ACKed; the delivery that fills the gap
	// applies it in its own transaction, in version order. HandleBatch
	// then handles its deliveries one by one.
	ParkGaps bool
	// BatchSize > 1 makes Run handle up to that many deliveries per
	// transaction (HandleBatch); Step always handles one.
	BatchSize int
	// PollInterval bounds Run's wait when the subscriber cannot signal; default 500ms.
	PollInterval time.Duration
	// TracerProvider traces each inbox transaction and its ACK (S22,
	// tracing.go); nil traces nothing (otel's noop provider).
	TracerProvider trace.TracerProvider
	// External makes a PaymentCreated's effect a card charge through
	// Provider too, made the way it names (S19); "" makes none. Handle
	// (and Step) make it; HandleBatch, whose transaction spans many
	// deliveries, does not: one provider call a delivery would hold the
	// batch's transaction open across them all.
	External External
	Provider Provider
}

// Outcome is what Handle did with a delivery.
type Outcome string

// The outcomes of Handle.
const (
	OutcomeApplied    Outcome = "applied"     // effect committed, ACKed
	OutcomeDuplicate  Outcome = "duplicate"   // already processed: nothing applied, ACKed
	OutcomeVersionGap Outcome = "version_gap" // a later version than expected: rolled back, NACKed for redelivery
	OutcomeParked     Outcome = "parked"      // can never apply (stale version, bad payload): rejected to the broker's dead letters
	OutcomeHeldAhead  Outcome = "held_ahead"  // ahead of its version (ParkGaps): kept in parked_messages, committed, ACKed
	OutcomeIdle       Outcome = "idle"        // Step found no delivery
)

// ConsumeResult says what Handle or Step did.
type ConsumeResult struct {
	Outcome   Outcome
	MessageID uuid.UUID
	PaymentID uuid.UUID
	Delivery  int
	// Expected and Got are the aggregate versions when Outcome is
	// OutcomeVersionGap or OutcomeParked for a version.
	Expected, Got int64
	// Idle is true when Step found no delivery (Outcome is OutcomeIdle).
	Idle bool
	// AckErr is a failed ACK after the commit: the effect is durable, and the
	// redelivery that follows is recognised as a duplicate.
	AckErr error
}

// Consumer applies deliveries exactly once per consumer name, on top of a
// broker that delivers at least once (S16–S18, S20). It owns one connection
// and is not safe for concurrent use: run one per goroutine.
//
// Version policy (S20): each consumer keeps the last aggregate_version it
// applied per aggregate in consumer_positions. A delivery whose version is
// ahead of the next expected one (a gap: an earlier event is still on its
// way) is rolled back — inbox marker included — and NACKed with
// GapRetryDelay, so it is applied once the gap closes. A version at or below
// the position that the inbox did not recognise can never be applied in
// order: it is rejected to the subscription's dead letters for an operator.
type Consumer struct {
	actor
	cfg      ConsumerConfig
	consumer string // inbox_messages.consumer_name
}

// NewConsumer returns a consumer; it connects on first use.
func NewConsumer(cfg ConsumerConfig) *Consumer {
	if cfg.Subscription == "" {
		cfg.Subscription = cfg.Name
	}
	if cfg.Effect == "" {
		cfg.Effect = EffectLedger
		if cfg.Name == "notifications" {
			cfg.Effect = EffectNotification
		}
	}
	if cfg.Strategy == "" {
		cfg.Strategy = StrategyInbox
	}
	if cfg.GapRetryDelay <= 0 {
		cfg.GapRetryDelay = time.Second
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 500 * time.Millisecond
	}
	if cfg.Counters == nil {
		cfg.Counters = &Counters{} // counted privately; callers pass one to read it
	}
	if cfg.Actor == "" {
		cfg.Actor = cfg.Name
	}
	c := &Consumer{actor: newActor(cfg.Actor, cfg.Clock, cfg.Hook, cfg.Connect), cfg: cfg}
	c.consumer = cfg.Name
	c.tr = newTracer(cfg.TracerProvider)
	return c
}

// Step takes the next available delivery from the subscription and handles
// it; with none available it returns OutcomeIdle.
func (c *Consumer) Step(ctx context.Context) (ConsumeResult, error) {
	d, ok, err := c.cfg.Subscriber.Receive(ctx, c.cfg.Subscription)
	if err != nil {
		return ConsumeResult{}, fmt.Errorf("%s: %w", c.name, err)
	}
	if !ok {
		return ConsumeResult{Outcome: OutcomeIdle, Idle: true}, nil
	}
	return c.Handle(ctx, d)
}

// Handle processes one delivery: in one transaction the inbox marker, the
// version check and the effect; COMMIT; then ACK. A duplicate is committed
// and ACKed, and is not an error. On an error (or a crash) nothing is ACKed:
// the broker hands the delivery out again after its ack timeout.
//
// With tracing on, the transaction and its ACK are a span linked to the
// context the delivery carries (startProcess says why a link), its
// outcome an attribute: a duplicate is a span of its own, marked so.
func (c *Consumer) Handle(ctx context.Context, d Delivery) (res ConsumeResult, err error) {
	if c.tr.on() {
		var s trace.Span
		ctx, s = c.startProcess(ctx, []Delivery{d})
		c.spans = []trace.Span{s}
		defer func() {
			c.spans = nil
			c.endProcess(s, []ConsumeResult{res}, false, err)
		}()
	}
	return c.handle(ctx, d)
}

func (c *Consumer) handle(ctx context.Context, d Delivery) (ConsumeResult, error) {
	res := ConsumeResult{MessageID: d.ID, Delivery: d.Count}
	var p PaymentPayload
	if err := json.Unmarshal(d.Payload, &p); err != nil || p.PaymentID == uuid.Nil {
		res.Outcome = OutcomeParked
		if rerr := c.settle(ctx, opReject, d, OutcomeParked, 0, "undecodable payload"); rerr != nil {
			return res, fmt.Errorf("%s: reject %s: %w", c.name, d.ID, rerr)
		}
		return res, nil
	}
	res.PaymentID = p.PaymentID
	db, err := c.conn(ctx)
	if err != nil {
		return res, fmt.Errorf("%s: %w", c.name, err)
	}
	now := c.clock.Now()
	if err := c.begin(ctx, db); err != nil {
		return res, fmt.Errorf("%s: %w", c.name, err)
	}
	fresh, err := c.claim(ctx, db, d, now)
	if err != nil {
		return res, c.abort(ctx, err)
	}
	if !fresh {
		return c.duplicate(ctx, d, res)
	}
	if c.cfg.Strategy != StrategySelectThenInsert && !c.cfg.IgnoreVersions {
		if stop, err := c.checkVersion(ctx, db, d, &res); stop || err != nil {
			return res, err
		}
	}
	if err := c.apply(ctx, db, d, p, now); err != nil {
		return res, c.abort(ctx, err)
	}
	if c.charges(d) && c.cfg.External == ExternalSecondOutbox {
		if err := c.queueCharge(ctx, db, d, p); err != nil {
			return res, c.abort(ctx, err)
		}
	}
	ev := c.event(d, ConsumerEffectApplied, Say("%s written, not committed", c.cfg.Effect))
	if c.cfg.ParkGaps && !c.cfg.IgnoreVersions && c.cfg.Strategy != StrategySelectThenInsert {
		n, err := c.applyParked(ctx, db, d)
		if err != nil {
			return res, c.abort(ctx, err)
		}
		if n > 0 {
			ev.Detail = Say("%s written with %d parked event(s) that follow it, not committed", c.cfg.Effect, n)
		}
	}
	at, hookErr := ConsumerEffectApplied, c.checkpoint(ctx, ev)
	if c.charges(d) && hookErr == nil && (c.cfg.External == ExternalMarkerAfter || c.cfg.External == ExternalProviderKey) {
		// The call inside the inbox transaction, before its COMMIT.
		var err error
		if hookErr, err = c.callProvider(ctx, d, p); err != nil {
			return res, c.abort(ctx, err)
		}
		at = ConsumerCalled
	}
	if err := c.finish(ctx, at, hookErr); err != nil {
		return res, fmt.Errorf("%s: message %s: %w", c.name, d.ID, err)
	}
	res.Outcome = OutcomeApplied
	c.cfg.Counters.add(&c.cfg.Counters.Processed, 1)
	if !d.PublishedAt.IsZero() {
		c.cfg.Counters.observe(&c.cfg.Counters.PublishedToProcessed, c.clock.Now().Sub(d.PublishedAt))
	}
	ev = c.event(d, ConsumerCommitted, Say("effect and inbox marker durable; not ACKed yet"))
	ev.Statement = stmtCommit
	if err := c.stopAt(ctx, ConsumerCommitted, c.checkpoint(ctx, ev)); err != nil {
		return res, err
	}
	if c.charges(d) && c.cfg.External == ExternalMarkerBefore {
		// The call after the marker's COMMIT: a failure or a crash from here
		// on leaves the payment processed and never charged.
		hookErr, err := c.callProvider(ctx, d, p)
		if err != nil {
			return res, fmt.Errorf("%s: %w", c.name, err)
		}
		if err := c.stopAt(ctx, ConsumerCalled, hookErr); err != nil {
			return res, err
		}
	}
	return res, c.ack(ctx, d, &res)
}

// claim decides whether the delivery is new, per the strategy.
func (c *Consumer) claim(ctx context.Context, db *pgx.Conn, d Delivery, now time.Time) (bool, error) {
	if c.cfg.Strategy == StrategySelectThenInsert {
		st := stmtFindLedgerEntry
		if c.cfg.Effect == EffectNotification {
			st = stmtFindNotification
		}
		var n int64
		if err := c.queryRow(ctx, db, st, c.consumer, d.ID).Scan(&n); err != nil {
			return false, err
		}
		ev := c.event(d, ConsumerInboxInserted, Say("SELECT found %d earlier effects (no lock, no unique key)", n))
		ev.Rows = n
		if err := c.stopAt(ctx, ConsumerInboxInserted, c.checkpoint(ctx, ev)); err != nil {
			return false, err
		}
		return n == 0, nil
	}
	key, traced := c.inboxKey(d)
	tag, err := c.exec(ctx, db, stmtInsertInboxMessage, c.consumer, key, now)
	if err != nil {
		return false, err
	}
	detail := Say("inbox marker inserted: first time this consumer sees the message")
	switch {
	case traced && tag.RowsAffected() == 0:
		detail = Say("inbox key is trace %s, already there: taken for a duplicate", trace.TraceID(key))
	case traced:
		detail = Say("inbox key is trace %s, not the message id", trace.TraceID(key))
	case tag.RowsAffected() == 0:
		detail = Say("inbox marker already there: a duplicate")
	}
	ev := c.event(d, ConsumerInboxInserted, detail)
	ev.Rows = tag.RowsAffected()
	if err := c.stopAt(ctx, ConsumerInboxInserted, c.checkpoint(ctx, ev)); err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

// inboxKey is what the inbox marker is keyed on: the event id; for
// StrategyTraceID, the trace id the delivery carries (its "traceparent"
// header, else the envelope's stored one), and traced is true. A delivery
// that carries no valid trace is keyed on its event id: the wrong strategy
// is wrong in that one way only.
func (c *Consumer) inboxKey(d Delivery) (key uuid.UUID, traced bool) {
	if c.cfg.Strategy == StrategyTraceID {
		if sc := carried(d); sc.IsValid() {
			return uuid.UUID(sc.TraceID()), true
		}
	}
	return d.ID, false
}

// duplicate commits the (empty) transaction and ACKs: an expected outcome, not an error.
func (c *Consumer) duplicate(ctx context.Context, d Delivery, res ConsumeResult) (ConsumeResult, error) {
	res.Outcome = OutcomeDuplicate
	c.cfg.Counters.duplicates(c.cfg.Name, 1)
	ev := c.event(d, ConsumerDuplicate, Say("delivery %d already processed: no effect", d.Count))
	if err := c.finish(ctx, ConsumerDuplicate, c.checkpoint(ctx, ev)); err != nil {
		return res, fmt.Errorf("%s: duplicate %s: %w", c.name, d.ID, err)
	}
	return res, c.ack(ctx, d, &res)
}

// checkVersion enforces per-aggregate order. stop is true when the delivery
// was refused (rolled back and NACKed or rejected) and Handle must return.
func (c *Consumer) checkVersion(ctx context.Context, db *pgx.Conn, d Delivery, res *ConsumeResult) (bool, error) {
	var last int64
	// No position row yet: the aggregate's first event is expected.
	err := c.queryRow(ctx, db, stmtReadPosition, c.consumer, d.AggregateID).Scan(&last)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return true, c.abort(ctx, err)
	}
	res.Expected, res.Got = last+1, d.AggregateVersion
	// advance moves the position to d's version; false: a concurrent
	// delivery of the same aggregate advanced it first (retry later).
	advance := func() (bool, error) {
		tag, err := c.exec(ctx, db, stmtAdvancePosition, c.consumer, d.AggregateID, d.AggregateVersion)
		if err != nil {
			return false, c.abort(ctx, err)
		}
		return tag.RowsAffected() == 1, nil
	}
	if d.AggregateVersion == last+1 {
		if ok, err := advance(); ok || err != nil {
			return err != nil, err
		}
	}
	if c.cfg.ParkGaps && d.AggregateVersion > last+1 && last == 0 {
		// No position row, so nothing locked yet: hold one, then read it
		// again (hold_position.sql says why).
		if _, err := c.exec(ctx, db, stmtHoldPosition, c.consumer, d.AggregateID); err != nil {
			return true, c.abort(ctx, err)
		}
		if err := c.queryRow(ctx, db, stmtReadPosition, c.consumer, d.AggregateID).Scan(&last); err != nil {
			return true, c.abort(ctx, err)
		}
		res.Expected = last + 1
		if d.AggregateVersion == last+1 {
			if ok, err := advance(); ok || err != nil {
				return err != nil, err
			}
		}
	}
	if c.cfg.ParkGaps && d.AggregateVersion > last+1 {
		return true, c.park(ctx, db, d, res, last)
	}
	c.rollback(ctx)
	c.cfg.Counters.add(&c.cfg.Counters.VersionGaps, 1)
	parked := d.AggregateVersion <= last
	detail := Say("aggregate %s: expected version %d, got %d: not applied, NACKed for redelivery", d.AggregateID, last+1, d.AggregateVersion)
	if parked {
		detail = Say("aggregate %s: version %d is at or behind %d already applied: rejected to dead letters", d.AggregateID, d.AggregateVersion, last)
	}
	ev := c.event(d, ConsumerVersionGap, detail)
	if err := c.stopAt(ctx, ConsumerVersionGap, c.checkpoint(ctx, ev)); err != nil {
		return true, err
	}
	if parked {
		res.Outcome = OutcomeParked
		if err := c.settle(ctx, opReject, d, OutcomeParked, 0, detail.String()); err != nil {
			return true, fmt.Errorf("%s: reject %s: %w", c.name, d.ID, err)
		}
		return true, nil
	}
	res.Outcome = OutcomeVersionGap
	if err := c.settle(ctx, opNack, d, OutcomeVersionGap, c.cfg.GapRetryDelay, ""); err != nil {
		return true, fmt.Errorf("%s: nack %s: %w", c.name, d.ID, err)
	}
	return true, nil
}

// apply inserts the business effect. Only PaymentCreated has one; later
// events of a payment only advance the consumer's position.
func (c *Consumer) apply(ctx context.Context, db *pgx.Conn, d Delivery, p PaymentPayload, now time.Time) error {
	if d.Type == EventPaymentCreated {
		var err error
		switch c.cfg.Effect {
		case EffectNotification:
			body := fmt.Sprintf("Payment %s of %d.%02d %s received", p.PaymentID, p.AmountCents/100, p.AmountCents%100, p.Currency)
			_, err = c.exec(ctx, db, stmtInsertNotification, c.consumer, d.ID, p.PaymentID, body, now)
		default:
			_, err = c.exec(ctx, db, stmtInsertLedgerEntry, c.consumer, d.ID, p.PaymentID, p.AmountCents, p.Currency, now)
		}
		if err != nil {
			return err
		}
	}
	if c.cfg.Strategy == StrategySelectThenInsert {
		// Bookkeeping only: the decision was the SELECT's. ON CONFLICT DO
		// NOTHING hides the second marker, not the second effect.
		_, err := c.exec(ctx, db, stmtInsertInboxMessage, c.consumer, d.ID, now)
		return err
	}
	return nil
}

// ack settles the delivery after the commit. A stale ACK (the delivery was
// already handed out again) is reported, not an error: the copy out there
// will be recognised as a duplicate.
func (c *Consumer) ack(ctx context.Context, d Delivery, res *ConsumeResult) error {
	err := c.settle(ctx, opAck, d, res.Outcome, 0, "")
	detail := Say("delivery %d acknowledged", d.Count)
	switch {
	case errors.Is(err, ErrStaleAck):
		res.AckErr, err = err, nil
		detail = Say("delivery %d: ACK too late, already handed out again", d.Count)
	case err != nil:
		res.AckErr = err
		return fmt.Errorf("%s: ack %s after commit (the redelivery will be a duplicate): %w", c.name, d.ID, err)
	}
	return c.stopAt(ctx, ConsumerAcked, c.checkpoint(ctx, c.event(d, ConsumerAcked, detail)))
}

func (c *Consumer) abort(ctx context.Context, err error) error {
	if !errors.Is(err, ErrCrash) {
		c.rollback(ctx)
	}
	return fmt.Errorf("%s: %w", c.name, err)
}

func (c *Consumer) event(d Delivery, at Checkpoint, detail Phrase) Event {
	var pid uuid.UUID
	var p PaymentPayload
	if json.Unmarshal(d.Payload, &p) == nil {
		pid = p.PaymentID
	}
	ev := Event{Checkpoint: at, MessageIDs: []uuid.UUID{d.ID}, PaymentID: pid, Delivery: d.Count, Detail: detail}
	if key, traced := c.inboxKey(d); traced {
		ev.InboxKey = key
	}
	if c.charges(d) {
		ev.External = c.cfg.External
	}
	return ev
}

// changeNotifier is implemented by subscribers that can wake a waiting consumer.
type changeNotifier interface {
	Changed() <-chan struct{}
}

// Run is the production loop: Step until idle, then wait for the broker to
// signal or PollInterval. Cancellation, a crash and errors other than a lost
// connection or a broker outage end it.
func (c *Consumer) Run(ctx context.Context) error {
	for {
		var wake <-chan struct{}
		if n, ok := c.cfg.Subscriber.(changeNotifier); ok {
			wake = n.Changed()
		}
		var res ConsumeResult
		var err error
		if c.cfg.BatchSize > 1 {
			var rs []ConsumeResult
			rs, err = c.StepBatch(ctx)
			if res.Outcome = OutcomeIdle; len(rs) > 0 {
				res = rs[0]
			}
		} else {
			res, err = c.Step(ctx)
		}
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil && (errors.Is(err, ErrConnection) || errors.Is(err, ErrBrokerDown) || errors.Is(err, ErrSerialization)):
			res.Outcome = OutcomeIdle
		case err != nil:
			return err
		}
		if res.Outcome != OutcomeIdle {
			continue
		}
		// A real wait for work to arrive: a context deadline, not the clock.
		wctx, cancel := context.WithTimeout(ctx, c.cfg.PollInterval)
		select {
		case <-wctx.Done():
		case <-wake:
		}
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// park keeps a delivery that is ahead of its aggregate's next version
// (ParkGaps): park_message takes its inbox marker back and writes the event
// to parked_messages, the transaction commits, and the delivery is ACKed —
// the broker is done with it, the consumer's table holds it. It is counted
// as a version gap: one was seen.
func (c *Consumer) park(ctx context.Context, db *pgx.Conn, d Delivery, res *ConsumeResult, last int64) error {
	if _, err := c.exec(ctx, db, stmtParkMessage, c.consumer, d.ID, d.AggregateID, d.AggregateVersion, d.Type, []byte(d.Payload), c.clock.Now()); err != nil {
		return c.abort(ctx, err)
	}
	c.cfg.Counters.add(&c.cfg.Counters.VersionGaps, 1)
	ev := c.event(d, ConsumerVersionGap, Say("aggregate %s: expected version %d, got %d: parked, applied when version %d arrives", d.AggregateID, last+1, d.AggregateVersion, last+1))
	ev.Statement = stmtParkMessage
	if err := c.finish(ctx, ConsumerVersionGap, c.checkpoint(ctx, ev)); err != nil {
		return fmt.Errorf("%s: park %s: %w", c.name, d.ID, err)
	}
	res.Outcome = OutcomeHeldAhead
	return c.ack(ctx, d, res)
}

// applyParked applies, in the transaction that applied d, the parked events
// of d's aggregate that now follow in version order: each gets its inbox
// marker (at its own time: the inbox says when each effect happened), its
// effect and the position, and leaves parked_messages. It returns how many.
func (c *Consumer) applyParked(ctx context.Context, db *pgx.Conn, d Delivery) (int, error) {
	n := 0
	for v := d.AggregateVersion + 1; ; v++ {
		next := d
		next.AggregateVersion = v
		var payload []byte
		err := c.queryRow(ctx, db, stmtUnparkNext, c.consumer, d.AggregateID, v).Scan(&next.ID, &next.Type, &payload)
		if errors.Is(err, ErrNotFound) {
			return n, nil // the next version is not parked (yet)
		}
		if err != nil {
			return n, err
		}
		next.Payload = payload
		var p PaymentPayload
		if err := json.Unmarshal(payload, &p); err != nil {
			return n, fmt.Errorf("parked %s: %w", next.ID, err)
		}
		now := c.clock.Now()
		tag, err := c.exec(ctx, db, stmtInsertInboxMessage, c.consumer, next.ID, now)
		if err != nil {
			return n, err
		}
		if _, err := c.exec(ctx, db, stmtAdvancePosition, c.consumer, d.AggregateID, v); err != nil {
			return n, err
		}
		if tag.RowsAffected() == 0 {
			continue // already applied (it came again meanwhile): the position moves on
		}
		if err := c.apply(ctx, db, next, p, now); err != nil {
			return n, err
		}
		n++
	}
}
