package engine

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"go.opentelemetry.io/otel/trace"
)

// RelayConfig configures a relay worker. Zero values take the defaults.
type RelayConfig struct {
	Name      string // actor name, e.g. "relay-1"; default "relay"
	Connect   Connect
	Publisher Publisher
	Topic     string // default TopicPayments
	Clock     Clock
	Hook      Hook
	// Rand draws the backoff jitter. Default: a PCG seeded from the worker
	// id, so a run is reproducible from its ids; never the global source.
	Rand     *rand.Rand
	Counters *Counters
	// WorkerID is the lease owner id; default a new uuid. A restarted relay is
	// a new Relay with a new id: it cannot mark rows its earlier life leased.
	WorkerID     uuid.UUID
	BatchSize    int           // rows per claim; default 25
	Lease        time.Duration // how long a claim holds a row; default 30s
	PollInterval time.Duration // Run's fallback when no NOTIFY comes; default 500ms
	MaxAttempts  int           // the attempt whose failure dead-letters the row; default 12
	// Pipeline overlaps PostgreSQL with the broker while a backlog drains:
	// after a full batch is claimed, the next claim is sent before this batch
	// is published, and a batch's marks are sent on the relay's second
	// connection and read back one step later. Step then reports
	// relay.marked for batch N during step N+1 (see relay_pipeline.go).
	Pipeline bool
	// PublishBatches sends a claimed batch whole when the Publisher is a
	// BatchPublisher (and nothing traces), reading the answers after:
	// relay.published is then reported for each message once the whole
	// batch is out, so a crash there still means published and not
	// marked. A simulator leaves it off to stop between two publishes; an
	// Ordering other than none ignores it (a failed publish must hold its
	// aggregate's later events back).
	PublishBatches bool
	// DisableListen makes Run poll only (no LISTEN/NOTIFY wake-up).
	DisableListen bool
	// DurableMarks keeps synchronous_commit on for claims and marks (see
	// Relay.claim and Relay.mark).
	DurableMarks bool
	// HoldTransaction is the wrong way S8 warns against, kept so the
	// simulator can show it: the claim's transaction stays open while
	// publishing and the marks commit in it (see Relay.stepHoldingTx).
	HoldTransaction bool
	// SeqCursor is the wrong way (Watermill #311), kept so the
	// simulator can show it: poll WHERE seq > last ORDER BY seq, publish,
	// move last (see Relay.stepBySeq). It loses events: seq is drawn at
	// INSERT, so a transaction holding a lower seq that commits after a
	// higher one was polled is behind the cursor for ever.
	SeqCursor bool
	// LeaseForever is the wrong way a zombie relay tempts one into, kept so the simulator can show it: a claim that never
	// expires, as a status = 'processing' column with no deadline does. A
	// relay that stalls holds its rows until it wakes, and one that dies
	// holds them for ever: its restart is a new worker, and nobody else may
	// claim a row whose lease has no end.
	LeaseForever bool
	// Ordering keeps one aggregate's events in order between relays (S20,
	// ordering.go); "" is OrderingNone.
	Ordering Ordering
	// CDC reads the outbox's inserts from logical replication instead of
	// polling (relay_cdc.go): no claim, no lease; a slot
	// that holds WAL while the relay is down, and the same duplicate window
	// between the broker's accept and the confirmed LSN.
	CDC bool
	// SlotWait bounds how long the CDC relay waits to make its slot: making
	// one waits for every transaction open at that moment to end (a writer
	// paused mid-transaction, a psql session left in BEGIN). Past it the
	// step fails with ErrSlotBlocked naming them; default 5s.
	SlotWait time.Duration
	// TracerProvider traces claims, publishes and marks (S22, tracing.go);
	// nil traces nothing (otel's noop provider).
	TracerProvider trace.TracerProvider
}

// Relay moves outbox rows to the broker (S8–S15): claim a batch under a
// lease, publish with no transaction open, then mark published (or schedule a
// retry) only where the lease is still this worker's. It owns its
// connection (two with Pipeline) and is not safe for concurrent use: run
// several Relays for parallelism, SKIP LOCKED keeps them apart.
type Relay struct {
	actor
	cfg   RelayConfig
	rnd   *rand.Rand
	ahead *claimAhead // Pipeline: the next batch's claim, sent, not read yet
	marks *marksAhead // Pipeline: the last batch's marks, sent, not read yet
	// unmarked and unpublished are what a Step cancelled while publishing
	// left in hand: published ids it did not mark, leased ids it did not
	// publish. Flush marks the first and releases the second.
	unmarked, unpublished []uuid.UUID
	// scanned is the last claimed batch, its backing array reused by the
	// next claim: a batch is done with once its step ends (the broker keeps
	// copies), and a fresh slice per step was ≈8% of the bytes a draining
	// relay allocated.
	scanned []ClaimedMessage
	listen  *pgx.Conn
	cdc     cdcStream // CDC: the slot and what was received (relay_cdc.go)
	// sent holds, with tracing on, the publish span of each id published and
	// not marked yet: the mark's span links to them.
	sent map[uuid.UUID]trace.SpanContext
	// lane and lanes are a partitioning relay's lane as its last claim read
	// it; rebalanced says they moved since the claim before.
	lane, lanes int
	rebalanced  bool
}

// ClaimedMessage is an outbox row leased by a relay.
type ClaimedMessage struct {
	Envelope
	Attempts  int
	Recovered bool // the row's previous lease had expired
}

// RelayStepResult says what one Step did.
type RelayStepResult struct {
	Claimed      int
	Published    int
	Marked       int
	Retried      int
	DeadLettered int
	LostLeases   int
	Recovered    int  // claimed rows whose earlier lease had expired
	Released     int  // leased rows handed back unpublished (Flush)
	Idle         bool // nothing was ready
	MessageIDs   []uuid.UUID
	// DedupDropped counts publishes the broker acked as duplicates of an id
	// it already held (within its dedup window) and dropped; they are in
	// Published too: the broker has the message, the row is marked.
	DedupDropped int
}

// NewRelay returns a relay; it connects on first use.
func NewRelay(cfg RelayConfig) *Relay {
	if cfg.Name == "" {
		cfg.Name = "relay"
	}
	if cfg.Topic == "" {
		cfg.Topic = TopicPayments
	}
	if cfg.WorkerID == uuid.Nil {
		cfg.WorkerID = uuid.New()
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 25
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 30 * time.Second
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 500 * time.Millisecond
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 12
	}
	if cfg.SlotWait <= 0 {
		cfg.SlotWait = 5 * time.Second
	}
	if cfg.Counters == nil {
		cfg.Counters = &Counters{} // counted privately; callers pass one to read it
	}
	rnd := cfg.Rand
	if rnd == nil {
		id := cfg.WorkerID
		rnd = rand.New(rand.NewPCG(binary.BigEndian.Uint64(id[:8]), binary.BigEndian.Uint64(id[8:])))
	}
	r := &Relay{actor: newActor(cfg.Name, cfg.Clock, cfg.Hook, cfg.Connect), cfg: cfg, rnd: rnd}
	if r.tr = newTracer(cfg.TracerProvider); r.tr.on() {
		r.sent = map[uuid.UUID]trace.SpanContext{}
	}
	return r
}

// WorkerID is the id this relay writes into lock_id.
func (r *Relay) WorkerID() uuid.UUID { return r.cfg.WorkerID }

// Step runs one iteration: claim → publish → mark. A publish failure
// schedules that row's retry and the batch goes on; a failure to write the
// retry, a lost connection, or cancellation is returned. Rows left leased by
// an error are reclaimed by any relay when their lease expires.
func (r *Relay) Step(ctx context.Context) (RelayStepResult, error) {
	var res RelayStepResult
	if err := ctx.Err(); err != nil {
		// Checked here because what a pipelined relay has in flight is not
		// bound to ctx (see claimAhead); Flush settles it.
		return res, fmt.Errorf("relay step: %w", err)
	}
	c, err := r.conn(ctx)
	if err != nil {
		r.dropAhead() // their leases expire; they will be published again
		return res, fmt.Errorf("relay step: %w", err)
	}
	if r.cfg.HoldTransaction {
		err := r.stepHoldingTx(ctx, c, &res)
		return res, err
	}
	if r.cfg.SeqCursor {
		err := r.stepBySeq(ctx, c, &res)
		return res, err
	}
	if r.cfg.CDC {
		err := r.stepCDC(ctx, c, &res)
		return res, err
	}
	if r.cfg.Ordering == OrderingPartition {
		if err := r.joinLanes(ctx, c); err != nil {
			return res, err
		}
	}
	var msgs []ClaimedMessage
	var sent, leaseUntil time.Time // when the claim was sent, the lease it wrote
	if r.cfg.Pipeline {
		msgs, sent, leaseUntil, err = r.takeClaim(ctx, c)
	} else {
		sent = r.clock.Now()
		leaseUntil = sent.Add(r.cfg.Lease)
		msgs, err = r.claim(ctx, c, sent, leaseUntil)
	}
	claimed := r.traceClaim(ctx, sent, leaseUntil, msgs, err)
	if err != nil {
		return res, err
	}
	res.Claimed = len(msgs)
	res.Idle = len(msgs) == 0
	if res.Idle {
		if err := r.reportHeldBack(ctx, c, sent); err != nil {
			return res, err
		}
		err := r.settleMarks(ctx, &res)
		// An idle claim reaches no checkpoint of its own, so nothing takes
		// what it ran: kept, a relay polling an empty outbox would hold a
		// statement per poll for as long as it stays idle.
		r.ran = nil
		return res, err
	}
	if err := r.reportClaimed(ctx, msgs, leaseUntil, &res); err != nil {
		return res, err
	}
	if r.cfg.Pipeline && len(msgs) == r.cfg.BatchSize && r.cfg.Ordering != OrderingPartition {
		// More is probably ready: PostgreSQL leases the next batch while
		// this one goes to the broker. Not for a partitioning relay: its
		// step reads its lane first (join_lanes) on this connection, which
		// a claim sent ahead would still hold busy.
		r.claimAhead(ctx, c)
	}
	failConn := func() (*pgx.Conn, error) { return c, nil }
	if r.cfg.Pipeline {
		failConn = func() (*pgx.Conn, error) { return r.markConn(ctx, &res) }
	}
	published, err := r.publish(ctx, msgs, claimed, failConn, &res)
	if err != nil || len(published) == 0 {
		return res, err
	}
	if r.cfg.Pipeline {
		return res, r.markAhead(ctx, published, &res)
	}
	sent = r.spanNow()
	m, err := r.mark(ctx, c, published)
	if err != nil {
		return res, err
	}
	m.sent = sent
	return res, r.reportMarked(ctx, m, &res)
}

// reportClaimed counts a claimed batch and reports relay.claimed.
func (r *Relay) reportClaimed(ctx context.Context, msgs []ClaimedMessage, leaseUntil time.Time, res *RelayStepResult) error {
	res.MessageIDs = make([]uuid.UUID, len(msgs))
	for i, m := range msgs {
		res.MessageIDs[i] = m.ID
		if m.Recovered {
			res.Recovered++
		}
	}
	r.cfg.Counters.add(&r.cfg.Counters.Claimed, len(msgs))
	r.cfg.Counters.add(&r.cfg.Counters.LeasesRecovered, res.Recovered)
	ev := Event{Checkpoint: RelayClaimed, Statement: r.claimStatement(), Rows: int64(len(msgs)), MessageIDs: res.MessageIDs,
		Detail: Say("%d leased until %s", len(msgs), leaseUntil.Format("15:04:05.000")), LeaseUntil: leaseUntil}
	if res.Recovered > 0 {
		ev.Detail = Say("%d leased until %s, %d from expired leases", len(msgs), leaseUntil.Format("15:04:05.000"), res.Recovered)
	}
	if r.cfg.LeaseForever {
		ev.Detail, ev.LeaseUntil = Say("%d leased with no end (the wrong way: nobody else may ever claim them)", len(msgs)), time.Time{}
	}
	ev.Detail = r.laneDetail(ev.Detail)
	return r.stopAt(ctx, RelayClaimed, r.checkpoint(ctx, ev))
}

// publish hands msgs to the broker, no transaction open, and returns the ids
// it accepted. A rejected message has its retry (or dead letter) written on
// the connection failConn returns. claimed is the claim's span, which each
// publish's span links to.
func (r *Relay) publish(ctx context.Context, msgs []ClaimedMessage, claimed trace.SpanContext, failConn func() (*pgx.Conn, error), res *RelayStepResult) ([]uuid.UUID, error) {
	published := make([]uuid.UUID, 0, len(msgs))
	// held are the aggregates whose publish failed in this batch under an
	// ordering policy: their later events are handed back, not published
	// past the one that waits for its retry (the claim's fence then keeps
	// them back until it is published).
	var held map[string]bool
	var handBack []uuid.UUID
	// A batch is sent whole before its answers are read (PublishBatches).
	// If ctx ends meanwhile, the loop below hands back the rest from the
	// first failure on, some of which the broker may have taken: they are
	// published again with the same ids, a duplicate the inbox absorbs,
	// never a loss. An ordering policy publishes one at a time: a failure
	// must hold its aggregate's later events back, which a batch already
	// sent cannot.
	var batch []PublishResult
	unordered := r.cfg.Ordering == "" || r.cfg.Ordering == OrderingNone
	if bp, ok := r.cfg.Publisher.(BatchPublisher); ok && r.cfg.PublishBatches && unordered && !r.tr.on() && len(msgs) > 1 {
		out := make([]Message, len(msgs))
		for i, m := range msgs {
			out[i] = newMessage(m.Envelope, r.cfg.Topic, r.name)
		}
		batch = bp.PublishBatch(ctx, out)
	}
	for i, m := range msgs {
		if held[m.AggregateType+"/"+m.AggregateID] {
			handBack = append(handBack, m.ID)
			continue
		}
		var dup bool
		var perr error
		if batch != nil {
			dup, perr = batch[i].Duplicate, batch[i].Err
		} else {
			dup, perr = r.publishOne(ctx, m, claimed)
		}
		if perr != nil {
			if ctx.Err() != nil {
				// Shutting down: Flush marks what went out and hands back
				// the rest (if nobody calls it, the leases expire and the
				// rows are published again, with the same ids).
				r.unmarked = append(r.unmarked, published...)
				for _, rest := range msgs[i:] {
					r.unpublished = append(r.unpublished, rest.ID)
				}
				return published, fmt.Errorf("relay publish %s: %w", m.ID, ctx.Err())
			}
			r.cfg.Counters.add(&r.cfg.Counters.PublishFailures, 1)
			c, err := failConn()
			if err == nil {
				err = r.fail(ctx, c, m, perr, res)
			}
			if err != nil {
				return published, err
			}
			if r.cfg.Ordering == OrderingPartition {
				if held == nil {
					held = map[string]bool{}
				}
				held[m.AggregateType+"/"+m.AggregateID] = true
			}
			continue
		}
		res.Published++
		if dup {
			res.DedupDropped++
		}
		published = append(published, m.ID)
		r.cfg.Counters.add(&r.cfg.Counters.Published, 1)
		if r.hook == nil {
			// Nobody watches: skip building a per-message event (no statement
			// was read since relay.claimed, so there is nothing else to report).
			continue
		}
		ev := Event{Checkpoint: RelayPublished, MessageIDs: []uuid.UUID{m.ID}, Detail: Say("attempt %d accepted by the broker, not marked yet", m.Attempts)}
		if dup {
			ev.DedupDropped = true
			ev.Detail = Say("attempt %d: the broker already had this id within its dedup window: acked as a duplicate and dropped, not marked yet", m.Attempts)
		}
		if err := r.stopAt(ctx, RelayPublished, r.checkpoint(ctx, ev)); err != nil {
			return published, err
		}
	}
	if len(handBack) > 0 {
		c, err := failConn()
		if err == nil {
			var tag pgconn.CommandTag
			tag, err = r.exec(ctx, c, stmtReleaseLeases, handBack, r.cfg.WorkerID)
			res.Released += int(tag.RowsAffected())
		}
		if err != nil {
			return published, fmt.Errorf("relay: hand back the events behind a failed publish: %w", err)
		}
	}
	return published, nil
}

// markOutcome pairs the ids a relay asked to mark with those it did mark.
type markOutcome struct {
	asked, marked []uuid.UUID
	// waited[i] is marked[i]'s published_at - occurred_at as the mark wrote
	// it: "occurred → published" is counted once per row, at its mark. A
	// publish that a crash kept from being marked counts nothing, so the
	// figure agrees with the table the learner reads.
	waited []time.Duration
	sent   time.Time // when the mark was sent: its span's start
}

func (r *Relay) reportMarked(ctx context.Context, m markOutcome, res *RelayStepResult) error {
	r.traceMark(ctx, m)
	res.Marked += len(m.marked)
	r.cfg.Counters.add(&r.cfg.Counters.Marked, len(m.marked))
	for _, d := range m.waited {
		r.cfg.Counters.observe(&r.cfg.Counters.OccurredToPublished, d)
	}
	ev := Event{Checkpoint: RelayMarked, Statement: stmtMarkPublished, Rows: int64(len(m.marked)), MessageIDs: m.marked,
		Detail: Say("%d marked published", len(m.marked))}
	if err := r.stopAt(ctx, RelayMarked, r.checkpoint(ctx, ev)); err != nil {
		return err
	}
	if len(m.marked) == len(m.asked) {
		return nil
	}
	lost := make([]uuid.UUID, 0, len(m.asked)-len(m.marked))
	for _, id := range m.asked {
		if !slices.Contains(m.marked, id) {
			lost = append(lost, id)
		}
	}
	res.LostLeases += len(lost)
	r.cfg.Counters.add(&r.cfg.Counters.LostLeases, len(lost))
	ev = Event{Checkpoint: RelayLeaseLost, MessageIDs: lost,
		Detail: Say("%d published but their lease is another worker's now: left alone (%s)", len(lost), ErrLostLease)}
	return r.stopAt(ctx, RelayLeaseLost, r.checkpoint(ctx, ev))
}

// claim leases the next batch, re-sorted by (occurred_at, id): RETURNING
// has no order.
//
// The claim, like the mark, commits with synchronous_commit = off (unless
// DurableMarks). A claim lost in a PostgreSQL crash only undoes the lease
// (and its attempts increment): the row is claimed again and, if it was
// published meanwhile, published again with the same id — a duplicate the
// consumers' inbox absorbs, never a loss. WAL is replayed in order, so a mark
// that survived implies its claim survived too.
func (r *Relay) claim(ctx context.Context, c *pgx.Conn, now, leaseUntil time.Time) ([]ClaimedMessage, error) {
	return r.readClaim(r.sendClaim(ctx, c, now, leaseUntil))
}

// sendClaim sends [relax_commit,] claim_batch in one round trip and returns
// without reading the reply (once the statements are prepared: pgx prepares
// a statement new to the connection in a round trip of its own first). A
// batch outside BEGIN runs as one implicit transaction, so the
// set_config(…, true) covers the claim and nothing after.
func (r *Relay) sendClaim(ctx context.Context, c *pgx.Conn, now, leaseUntil time.Time) pgx.BatchResults {
	batch := &pgx.Batch{}
	if !r.cfg.DurableMarks {
		batch.Queue(stmtRelaxCommit.SQL)
	}
	batch.Queue(r.claimStatement().SQL, r.claimArgs(now, leaseUntil)...)
	return c.SendBatch(ctx, batch)
}

// leaseArg is the claim's locked_until: the lease's end, or NULL when the
// lease never expires (LeaseForever): the claim reads a leased row with no
// end as held.
func (r *Relay) leaseArg(until time.Time) *time.Time {
	if r.cfg.LeaseForever {
		return nil
	}
	return &until
}

// readClaim reads what sendClaim's batch returned and closes it. The
// statements are noted here, not when sent, so that a claim sent ahead shows
// in the checkpoint of the step that reads it.
func (r *Relay) readClaim(br pgx.BatchResults) ([]ClaimedMessage, error) {
	if !r.cfg.DurableMarks {
		r.note(stmtRelaxCommit)
	}
	st := r.claimStatement()
	r.note(st)
	if !r.cfg.DurableMarks {
		if _, err := batchExec(br, stmtRelaxCommit); err != nil {
			br.Close()
			return nil, fmt.Errorf("relay %w", err)
		}
	}
	var msgs []ClaimedMessage
	err := batchQuery(br, st, func(rows pgx.Rows) (err error) {
		msgs, err = scanClaimed(rows, r.scanned[:0])
		return err
	})
	r.scanned = msgs
	if cerr := closeBatch(br, st); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("relay %w", err)
	}
	return msgs, nil
}

// scanClaimed appends claim_batch's rows to msgs, re-sorted by
// (occurred_at, id): RETURNING has no order.
func scanClaimed(rows pgx.Rows, msgs []ClaimedMessage) ([]ClaimedMessage, error) {
	// One set of scan targets for every row: declared per row they escaped
	// to the heap through Scan's ...any, five allocations a row. pgx gives
	// every text and bytes value fresh memory, so reusing them is safe.
	var (
		m        ClaimedMessage
		trace    pgtype.Text
		attempts int32
		// The payload is scanned as bytes: into a json.RawMessage pgx would
		// run json.Unmarshal, re-validating what PostgreSQL's jsonb output
		// guarantees is valid JSON (a tenth of the relay's CPU per message).
		payload []byte
		scanErr error
	)
	dest := []any{&m.ID, &m.AggregateType, &m.AggregateID, &m.AggregateVersion, &m.Type, &m.SchemaVersion,
		&payload, &trace, &m.OccurredAt, &attempts, &m.Recovered}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			scanErr = err
			break
		}
		m.Payload = payload
		m.Attempts = int(attempts)
		m.TraceParent = trace.String // "" when NULL
		msgs = append(msgs, m)
	}
	rows.Close()
	err := rows.Err()
	if err == nil {
		err = scanErr
	}
	if err != nil {
		return nil, err
	}
	slices.SortFunc(msgs, func(a, b ClaimedMessage) int {
		if c := a.OccurredAt.Compare(b.OccurredAt); c != 0 {
			return c
		}
		return bytes.Compare(a.ID[:], b.ID[:]) // uuid order as PostgreSQL sorts it
	})
	versionOrder(msgs)
	return msgs, nil
}

// versionOrder puts each aggregate's events of a batch in version order,
// in the places they hold in it. (occurred_at, id) is not always version
// order: two captures of one payment race, and the one that bumps the
// version second may have read the clock first.
func versionOrder(msgs []ClaimedMessage) {
	type key struct{ typ, id string }
	if len(msgs) < 2 {
		return
	}
	// Most batches hold each aggregate once, or its versions in order: one
	// pass with no allocation beyond the map tells.
	last := make(map[key]int64, len(msgs))
	sorted := true
	for _, m := range msgs {
		k := key{m.AggregateType, m.AggregateID}
		if v, ok := last[k]; ok && v > m.AggregateVersion {
			sorted = false
			break
		}
		last[k] = m.AggregateVersion
	}
	if sorted {
		return
	}
	at := map[key][]int{}
	for i, m := range msgs {
		k := key{m.AggregateType, m.AggregateID}
		at[k] = append(at[k], i)
	}
	for _, idx := range at {
		if len(idx) < 2 {
			continue
		}
		group := make([]ClaimedMessage, len(idx))
		for j, i := range idx {
			group[j] = msgs[i]
		}
		slices.SortStableFunc(group, func(a, b ClaimedMessage) int { return cmp.Compare(a.AggregateVersion, b.AggregateVersion) })
		for j, i := range idx {
			msgs[i] = group[j]
		}
	}
}

// mark sets published_at on ids still leased by this worker and returns
// those it marked.
//
// The mark commits with synchronous_commit = off (unless DurableMarks): if
// PostgreSQL crashes before the mark reaches disk, the row is merely
// unpublished again and is republished with the same id after its lease
// expires — a duplicate the consumers' inbox absorbs, never a loss. In
// exchange the relay does not wait for a WAL flush per batch.
func (r *Relay) mark(ctx context.Context, c *pgx.Conn, ids []uuid.UUID) (markOutcome, error) {
	return r.readMark(r.sendMark(ctx, c, ids), ids)
}

// sendMark sends [relax_commit,] mark_published like sendClaim sends its
// batch: one round trip, one implicit transaction, the reply not read.
func (r *Relay) sendMark(ctx context.Context, c *pgx.Conn, ids []uuid.UUID) pgx.BatchResults {
	batch := &pgx.Batch{}
	if !r.cfg.DurableMarks {
		batch.Queue(stmtRelaxCommit.SQL)
	}
	batch.Queue(stmtMarkPublished.SQL, ids, r.cfg.WorkerID, r.clock.Now())
	return c.SendBatch(ctx, batch)
}

// readMark reads what sendMark's batch for asked returned (the rows marked)
// and closes it; like readClaim, it notes the statements.
func (r *Relay) readMark(br pgx.BatchResults, asked []uuid.UUID) (markOutcome, error) {
	if !r.cfg.DurableMarks {
		r.note(stmtRelaxCommit)
	}
	r.note(stmtMarkPublished)
	defer br.Close()
	out := markOutcome{asked: asked}
	if !r.cfg.DurableMarks {
		if _, err := batchExec(br, stmtRelaxCommit); err != nil {
			return out, fmt.Errorf("relay %w", err)
		}
	}
	if err := batchQuery(br, stmtMarkPublished, out.collect); err != nil {
		return out, fmt.Errorf("relay %w", err)
	}
	if err := closeBatch(br, stmtMarkPublished); err != nil {
		return out, fmt.Errorf("relay %w", err)
	}
	return out, nil
}

// collect reads mark_published's RETURNING into m: each row marked and how
// long after its event it was.
func (m *markOutcome) collect(rows pgx.Rows) error {
	for rows.Next() {
		var id uuid.UUID
		var published, occurred time.Time
		if err := rows.Scan(&id, &published, &occurred); err != nil {
			return err
		}
		m.marked = append(m.marked, id)
		m.waited = append(m.waited, published.Sub(occurred))
	}
	return nil
}

// fail schedules the retry of m after a failed publish, or dead-letters it at
// the last attempt. Only the lease owner writes; an error writing is returned.
func (r *Relay) fail(ctx context.Context, c *pgx.Conn, m ClaimedMessage, cause error, res *RelayStepResult) error {
	now := r.clock.Now()
	msg := sanitizeError(cause)
	st, at := stmtScheduleRetry, RelayRetryScheduled
	when := now // dead_lettered_at, or next_attempt_at below
	var detail Phrase
	if m.Attempts >= r.cfg.MaxAttempts {
		st, at = stmtDeadLetter, RelayDeadLettered
		detail = Say("attempt %d of %d failed: dead-lettered", m.Attempts, r.cfg.MaxAttempts)
	} else {
		next := now.Add(jittered(RetryDelay(m.Attempts), r.rnd))
		when = next
		detail = Say("attempt %d failed, next at %s", m.Attempts, next.Format("15:04:05.000"))
	}
	ct, err := r.exec(ctx, c, st, m.ID, r.cfg.WorkerID, when, msg)
	if err != nil {
		return fmt.Errorf("relay: publish of %s failed (%s) and %w", m.ID, msg, err)
	}
	ev := Event{Checkpoint: at, Statement: st, Rows: ct.RowsAffected(), MessageIDs: []uuid.UUID{m.ID}, Detail: Say("%s: %s", detail, msg)}
	if ct.RowsAffected() == 0 {
		res.LostLeases++
		r.cfg.Counters.add(&r.cfg.Counters.LostLeases, 1)
		ev.Checkpoint, ev.Detail = RelayLeaseLost, Say("publish failed and the lease is another worker's now: left alone")
		return r.stopAt(ctx, RelayLeaseLost, r.checkpoint(ctx, ev))
	}
	if at == RelayDeadLettered {
		res.DeadLettered++
		r.cfg.Counters.add(&r.cfg.Counters.DeadLettered, 1)
	} else {
		res.Retried++
		r.cfg.Counters.add(&r.cfg.Counters.RetriesScheduled, 1)
	}
	return r.stopAt(ctx, at, r.checkpoint(ctx, ev))
}

// Flush settles what the relay has in hand, as a graceful stop should (Run
// calls it on its way out, and before it waits for work): it reads the
// marks in flight, marks what a cancelled Step published, and hands back
// (release_leases) what it leased and did not publish — a claim sent ahead,
// the rest of a cancelled batch — so that no lease is left to expire. After
// a crash it does nothing: a dead relay leaves its leases behind.
func (r *Relay) Flush(ctx context.Context) (RelayStepResult, error) {
	var res RelayStepResult
	if r.db == nil || r.db.IsClosed() {
		r.dropAhead()
		return res, nil
	}
	release := r.unpublished
	r.unpublished = nil
	if a := r.ahead; a != nil {
		r.ahead = nil
		if a.conn == r.db {
			msgs, err := r.readClaim(a.br)
			if err != nil {
				return res, err
			}
			for _, m := range msgs {
				release = append(release, m.ID)
			}
		}
	}
	if err := r.settleMarks(ctx, &res); err != nil {
		return res, err
	}
	if ids := r.unmarked; len(ids) > 0 {
		r.unmarked = nil
		sent := r.spanNow()
		m, err := r.mark(ctx, r.db, ids)
		if err != nil {
			return res, err
		}
		m.sent = sent
		if err := r.reportMarked(ctx, m, &res); err != nil {
			return res, err
		}
	}
	if len(release) > 0 {
		tag, err := r.exec(ctx, r.db, stmtReleaseLeases, release, r.cfg.WorkerID)
		if err != nil {
			return res, fmt.Errorf("relay: %w", err)
		}
		res.Released = int(tag.RowsAffected())
	}
	return res, nil
}

// Run is the production loop: Step until nothing is ready, then wait for a
// NOTIFY from a writer's commit, or PollInterval at most (the fallback when a
// notification is missed, and what wakes scheduled retries). A lost
// connection is retried after PollInterval; cancellation, a crash injected by
// the hook and any other error end Run.
func (r *Relay) Run(ctx context.Context) error {
	defer r.closeListen()
	defer func() { _, _ = r.Flush(context.WithoutCancel(ctx)) }()
	for {
		res, err := r.Step(ctx)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil && errors.Is(err, ErrConnection):
			r.closeListen()
			if werr := sleep(ctx, r.cfg.PollInterval); werr != nil {
				return werr
			}
			continue
		case err != nil:
			return err
		}
		if res.Claimed == r.cfg.BatchSize {
			continue // a full batch: more is probably ready
		}
		if _, err := r.Flush(ctx); err != nil && !errors.Is(err, ErrConnection) {
			return err
		}
		if err := r.wait(ctx); err != nil {
			return err
		}
	}
}

// wait blocks until a NOTIFY arrives or PollInterval passes.
func (r *Relay) wait(ctx context.Context) error {
	if r.cfg.DisableListen {
		return sleep(ctx, r.cfg.PollInterval)
	}
	if r.listen == nil || r.listen.IsClosed() {
		c, err := r.connect(ctx)
		if err == nil {
			// Not noted: the listener is not the relay's working connection,
			// and a failed LISTEN only means polling.
			_, err = execOn(ctx, c, stmtListenOutbox)
			if err != nil {
				_ = c.Close(ctx)
			}
		}
		if err != nil {
			// No listener: fall back to polling alone.
			return sleep(ctx, r.cfg.PollInterval)
		}
		r.listen = c
	}
	wctx, cancel := context.WithTimeout(ctx, r.cfg.PollInterval)
	defer cancel()
	_, err := r.listen.WaitForNotification(wctx)
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil && wctx.Err() == nil:
		r.closeListen() // the listener died; reopened next time
	}
	return nil
}

func (r *Relay) closeListen() {
	if r.listen != nil {
		_ = r.listen.Close(context.Background())
		r.listen = nil
	}
}

// Close closes the relay's connections; unmarked rows keep their lease until it expires.
func (r *Relay) Close(ctx context.Context) error {
	r.closeListen()
	return r.actor.Close(ctx)
}

// sleep waits d, or until ctx ends: a real wait against the server or the
// network (a poll interval, a walsender's exit), so a context deadline;
// the engine reads time only from its Clock.
func sleep(ctx context.Context, d time.Duration) error {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	<-wctx.Done()
	return ctx.Err()
}

// stepHoldingTx is one iteration the wrong way (S8): BEGIN, claim, publish
// with the transaction still open and the rows locked, mark, COMMIT. It buys
// nothing: the broker is outside the transaction, so a crash after a publish
// still means a republish with the same id. It costs plenty: locks and a
// connection held for as long as the broker takes, and a crash rolls the
// claim back — the lease and the attempts increment vanish, so a message that
// crashes its relay every time is never counted towards the dead letter.
func (r *Relay) stepHoldingTx(ctx context.Context, c *pgx.Conn, res *RelayStepResult) error {
	now := r.clock.Now()
	if err := r.begin(ctx, c); err != nil {
		return fmt.Errorf("relay: %w", err)
	}
	var msgs []ClaimedMessage
	err := r.query(ctx, c, stmtClaimBatch, func(rows pgx.Rows) (err error) {
		msgs, err = scanClaimed(rows, make([]ClaimedMessage, 0, r.cfg.BatchSize))
		return err
	}, now, r.cfg.BatchSize, r.cfg.WorkerID, r.leaseArg(now.Add(r.cfg.Lease)))
	claimed := r.traceClaim(ctx, now, now.Add(r.cfg.Lease), msgs, err)
	if err != nil {
		r.rollback(ctx)
		return fmt.Errorf("relay %w", err)
	}
	res.Claimed = len(msgs)
	if res.Idle = len(msgs) == 0; res.Idle {
		r.rollback(ctx)
		return nil
	}
	for _, m := range msgs {
		res.MessageIDs = append(res.MessageIDs, m.ID)
	}
	r.cfg.Counters.add(&r.cfg.Counters.Claimed, len(msgs))
	ev := Event{Checkpoint: RelayClaimed, Statement: stmtClaimBatch, Rows: int64(len(msgs)), MessageIDs: res.MessageIDs,
		Detail: Say("%d locked, transaction still open while publishing (the wrong way, S8)", len(msgs))}
	if err := r.stopAt(ctx, RelayClaimed, r.checkpoint(ctx, ev)); err != nil {
		return err
	}
	published := make([]uuid.UUID, 0, len(msgs))
	for _, m := range msgs {
		if _, perr := r.publishOne(ctx, m, claimed); perr != nil {
			if ctx.Err() != nil {
				r.rollback(ctx)
				return fmt.Errorf("relay publish %s: %w", m.ID, ctx.Err())
			}
			r.cfg.Counters.add(&r.cfg.Counters.PublishFailures, 1)
			if err := r.fail(ctx, c, m, perr, res); err != nil {
				r.rollback(ctx)
				return err
			}
			continue
		}
		res.Published++
		published = append(published, m.ID)
		r.cfg.Counters.add(&r.cfg.Counters.Published, 1)
		ev := Event{Checkpoint: RelayPublished, MessageIDs: []uuid.UUID{m.ID},
			Detail: Say("attempt %d accepted by the broker; the claim is not even committed yet", m.Attempts)}
		if err := r.stopAt(ctx, RelayPublished, r.checkpoint(ctx, ev)); err != nil {
			return err
		}
	}
	m := markOutcome{asked: published, sent: r.spanNow()}
	if len(published) > 0 {
		if err := r.query(ctx, c, stmtMarkPublished, m.collect, published, r.cfg.WorkerID, r.clock.Now()); err != nil {
			r.rollback(ctx)
			return fmt.Errorf("relay %w", err)
		}
	}
	if err := r.finish(ctx, RelayPublished, nil); err != nil {
		return fmt.Errorf("relay: commit: %w", err)
	}
	if len(published) == 0 {
		return nil
	}
	return r.reportMarked(ctx, m, res)
}
