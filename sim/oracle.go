package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/pg/slotname"
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
	SuppressedEffects   int64 // published events a consumer settled without their effect (S22)
	DeadLettered        int64
	Pending             int64 // outbox rows not yet published nor dead-lettered
	MaxAttempts         int64
	VersionGaps         int64
	OutOfOrder          int64 // effects applied before an earlier version of their aggregate (S20)
	Parked              int64 // events a parking consumer holds ahead of their version now
	HeldBack            int64 // ordering claims that leased nothing while ready rows waited
	LostLeases          int64
	LeasesRecovered     int64 // claims that took over an expired lease (S24), from the lease witness
	DoubleLeases        int64
	Crashes             int64
	Conflicts           int64 // 422 answers to a reused key with another body
	Replays             int64 // stored responses returned for a repeated key
	OldestPendingAge    time.Duration
	// External is how accounting charges the card (S19: the scene's
	// effect: header), "" when it charges nothing; then the three figures
	// below are zero. The card provider's figures are read from its tables.
	External      string
	Charges       int64 // charges the provider made
	LostCharges   int64 // payments applied and never charged, nothing left in flight
	DoubleCharges int64 // payments charged more than once
	// SlotRetainedBytes is the WAL the CDC relay's slot holds past its
	// confirmed position; Slots counts the database's
	// slots (0: no CDC relay, the figure is not shown).
	SlotRetainedBytes int64
	Slots             int64

	// Examples name a message id for each violation, so the UI can point at it.
	LostExample, PhantomExample, DuplicateExample, DoubleLeaseExample string
	SuppressedExample                                                 string
	LostChargeExample, DoubleChargeExample                            string
}

// sqlSuppressedEffects lists the published events a consumer lacks the
// effect of (suppressed_effects).
var sqlSuppressedEffects = statement("suppressed_effects")

// figures is the one table of the oracle's figures: the name an `expect`
// line and `run --json` use, and where its value is. scenes.Figures lists the
// same names for the parser; a test keeps the two equal.
var figures = []struct {
	name string
	of   func(*Oracle) int64
}{
	{"payments", func(o *Oracle) int64 { return o.Payments }},
	{"outbox_rows", func(o *Oracle) int64 { return o.OutboxRows }},
	{"published", func(o *Oracle) int64 { return o.Published }},
	{"publishes", func(o *Oracle) int64 { return o.Publishes }},
	{"deliveries", func(o *Oracle) int64 { return o.Deliveries }},
	{"duplicates_delivered", func(o *Oracle) int64 { return o.DuplicatesDelivered }},
	{"duplicates_ignored", func(o *Oracle) int64 { return o.DuplicatesIgnored }},
	{"effects", func(o *Oracle) int64 { return o.Effects }},
	{"ledger_entries", func(o *Oracle) int64 { return o.LedgerEntries }},
	{"notifications", func(o *Oracle) int64 { return o.Notifications }},
	{"lost_events", func(o *Oracle) int64 { return o.LostEvents }},
	{"phantom_effects", func(o *Oracle) int64 { return o.PhantomEffects }},
	{"duplicate_effects", func(o *Oracle) int64 { return o.DuplicateEffects }},
	{"suppressed_effects", func(o *Oracle) int64 { return o.SuppressedEffects }},
	{"charges", func(o *Oracle) int64 { return o.Charges }},
	{"lost_charges", func(o *Oracle) int64 { return o.LostCharges }},
	{"double_charges", func(o *Oracle) int64 { return o.DoubleCharges }},
	{"dead_lettered", func(o *Oracle) int64 { return o.DeadLettered }},
	{"pending", func(o *Oracle) int64 { return o.Pending }},
	{"max_attempts", func(o *Oracle) int64 { return o.MaxAttempts }},
	{"version_gaps", func(o *Oracle) int64 { return o.VersionGaps }},
	{"out_of_order", func(o *Oracle) int64 { return o.OutOfOrder }},
	{"parked", func(o *Oracle) int64 { return o.Parked }},
	{"held_back", func(o *Oracle) int64 { return o.HeldBack }},
	{"lost_leases", func(o *Oracle) int64 { return o.LostLeases }},
	{"leases_recovered", func(o *Oracle) int64 { return o.LeasesRecovered }},
	{"double_leases", func(o *Oracle) int64 { return o.DoubleLeases }},
	{"crashes", func(o *Oracle) int64 { return o.Crashes }},
	{"conflicts", func(o *Oracle) int64 { return o.Conflicts }},
	{"replays", func(o *Oracle) int64 { return o.Replays }},
	{"slot_retained_bytes", func(o *Oracle) int64 { return o.SlotRetainedBytes }},
}

// Figure returns a figure by its scene name (scenes.Figures).
func (o Oracle) Figure(name string) (int64, error) {
	for _, f := range figures {
		if f.name == name {
			return f.of(&o), nil
		}
	}
	return 0, fmt.Errorf("unknown figure %q", name)
}

// NamedFigure is one figure and its value.
type NamedFigure struct {
	Name  string
	Value int64
}

// Figures lists every figure, in the table's order.
func (o Oracle) Figures() []NamedFigure {
	out := make([]NamedFigure, len(figures))
	for i, f := range figures {
		out[i] = NamedFigure{f.name, f.of(&o)}
	}
	return out
}

// Oracles computes the oracle of every pipeline.
func (s *Sim) Oracles(ctx context.Context) ([]Oracle, error) {
	s.op.Lock()
	defer s.op.Unlock()
	return s.oracles(ctx)
}

func (s *Sim) oracles(ctx context.Context) ([]Oracle, error) {
	if err := s.downErr(ctx); err != nil {
		return nil, err
	}
	var out []Oracle
	for _, p := range s.pipes {
		o, err := p.oracle(ctx)
		if err != nil {
			return nil, s.checkDown(ctx, fmt.Errorf("%s oracle: %w", p.Kind, err))
		}
		out = append(out, o)
	}
	return out, nil
}

func (p *Pipeline) oracle(ctx context.Context) (Oracle, error) {
	o := Oracle{Pipeline: p.Kind}
	var oldest *time.Time
	var phantomEx, dupEx *string
	err := p.pool.QueryRow(ctx, sqlOracle, p.liveWorkers()).Scan(&o.Payments, &o.OutboxRows, &o.Published, &o.LedgerEntries, &o.Notifications,
		&o.DeadLettered, &o.Pending, &o.MaxAttempts, &oldest, &o.PhantomEffects, &phantomEx, &o.DuplicateEffects, &dupEx)
	if err != nil {
		return o, fmt.Errorf("figures: %w", err)
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
	rows, err := p.pool.Query(ctx, sqlMissingEffects, p.liveWorkers())
	if err != nil {
		return o, fmt.Errorf("missing effects: %w", err)
	}
	lost := map[string]bool{}
	for rows.Next() {
		var pay, consumer string
		var dead bool
		if err := rows.Scan(&pay, &consumer, &dead); err != nil {
			rows.Close()
			return o, fmt.Errorf("missing effects: %w", err)
		}
		if inFlight[consumer][pay] || dead {
			continue
		}
		if !lost[pay] && o.LostExample == "" {
			o.LostExample = pay
		}
		lost[pay] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return o, fmt.Errorf("missing effects: %w", err)
	}
	o.LostEvents = int64(len(lost))
	if err := p.suppressedEffects(ctx, &o); err != nil {
		return o, err
	}
	if p.provider != nil {
		o.External = p.sim.settings.Effect
		if err := p.charges(ctx, &o, inFlight[charger]); err != nil {
			return o, err
		}
	}

	c := p.counters
	o.DuplicatesIgnored = c.DuplicatesIgnored.Load()
	o.VersionGaps = c.VersionGaps.Load()
	o.HeldBack = c.HeldBack.Load()
	if err := p.pool.QueryRow(ctx, sqlOrdering).Scan(&o.OutOfOrder, &o.Parked); err != nil {
		return o, fmt.Errorf("ordering: %w", err)
	}
	o.LostLeases = c.LostLeases.Load()
	if p.Kind == "outbox" && p.sim.settings.CDC {
		if err := p.pool.QueryRow(ctx, sqlSlotRetained, slotname.Prefix).Scan(&o.Slots, &o.SlotRetainedBytes); err != nil {
			return o, fmt.Errorf("slot retained bytes: %w", err)
		}
	}
	if p.Kind == "outbox" {
		var ex *string
		if err := p.pool.QueryRow(ctx, sqlDoubleLeases, p.sim.settings.Lease).Scan(&o.DoubleLeases, &ex); err != nil {
			return o, fmt.Errorf("double leases: %w", err)
		}
		if ex != nil {
			o.DoubleLeaseExample = *ex
		}
		if err := p.pool.QueryRow(ctx, sqlLeasesRecovered, p.sim.settings.Lease).Scan(&o.LeasesRecovered); err != nil {
			return o, fmt.Errorf("leases recovered: %w", err)
		}
	}
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

// suppressedEffects counts, per consumer, the published events whose effect
// it lacks although the broker holds them for it no longer: delivered,
// ACKed, and never applied — an inbox keyed on something other than the
// event id (S22's trace id) took them for duplicates. lost_events, per
// payment, cannot see it: the payment's first effect is there. An event the
// broker still holds for the consumer (queued, unACKed, rejected to its dead
// letters) is not counted: its effect may still come, or an operator has it.
func (p *Pipeline) suppressedEffects(ctx context.Context, o *Oracle) error {
	rows, err := p.pool.Query(ctx, sqlSuppressedEffects)
	if err != nil {
		return fmt.Errorf("suppressed effects: %w", err)
	}
	type pair struct{ consumer, id string }
	var missing []pair
	for rows.Next() {
		var m pair
		if err := rows.Scan(&m.id, &m.consumer); err != nil {
			rows.Close()
			return fmt.Errorf("suppressed effects: %w", err)
		}
		missing = append(missing, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("suppressed effects: %w", err)
	}
	if len(missing) == 0 {
		return nil
	}
	held := map[pair]bool{}
	for _, u := range p.broker.Unsettled() {
		held[pair{u.Subscription, u.Message.ID.String()}] = true
	}
	for _, m := range missing {
		if held[m] || slices.ContainsFunc(p.broker.DeadLetters(m.consumer), func(dl engine.DeadLetter) bool { return dl.Delivery.ID.String() == m.id }) {
			continue
		}
		if o.SuppressedEffects == 0 {
			o.SuppressedExample = m.id
		}
		o.SuppressedEffects++
	}
	return nil
}

// charges reads the card provider's figures (S19) from its tables: what it
// charged, the payments it charged twice, and the payments accounting
// applied that it never charged — less those whose delivery the broker
// still holds for accounting (inFlight): their call may still come, as a
// lost event's effect may.
func (p *Pipeline) charges(ctx context.Context, o *Oracle, inFlight map[string]bool) error {
	var ex *string
	if err := p.pool.QueryRow(ctx, sqlCharges).Scan(&o.Charges, &o.DoubleCharges, &ex); err != nil {
		return fmt.Errorf("charges: %w", err)
	}
	if ex != nil {
		o.DoubleChargeExample = *ex
	}
	rows, err := p.pool.Query(ctx, sqlUnchargedPayments, charger)
	if err != nil {
		return fmt.Errorf("uncharged payments: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var pay string
		if err := rows.Scan(&pay); err != nil {
			return fmt.Errorf("uncharged payments: %w", err)
		}
		if inFlight[pay] {
			continue
		}
		if o.LostChargeExample == "" {
			o.LostChargeExample = pay
		}
		o.LostCharges++
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("uncharged payments: %w", err)
	}
	return nil
}
