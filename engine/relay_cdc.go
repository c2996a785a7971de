package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/outboxlab/outboxlab/pg/slotname"
	"go.opentelemetry.io/otel/trace"
)

// The CDC relay (S26) reads the outbox's INSERTs from
// PostgreSQL's logical replication instead of polling the table: a
// publication (pg/schema/006), a logical slot with pgoutput, a replication
// connection streaming from the slot.
//
// What it removes: no poll (nothing asks the table what is ready), no claim,
// no lease, no SKIP LOCKED, no attempts: the WAL already holds each committed
// row once, in commit order, and the slot remembers how far this relay got.
//
// What it brings: the slot holds the WAL from its confirmed position on for
// as long as it exists, read or not — a relay that is down makes the server
// keep WAL growing on disk. And its duplicate window is the polling relay's
// under another name: between the broker's accept and the confirmation of
// the LSN, a crash restarts the stream from the last confirmed position and
// the same ids are published again. The consumers' inbox is still needed.
var (
	stmtCDCWalLevel         = load("cdc_wal_level")
	stmtCDCSlotName         = load("cdc_slot_name")
	stmtCDCPublication      = load("cdc_publication")
	stmtCDCCreateSlot       = load("cdc_create_slot")
	stmtCDCSlotBlockers     = load("cdc_slot_blockers")
	stmtCDCSlotState        = load("cdc_slot_state")
	stmtCDCEndStaleSender   = load("cdc_end_stale_sender")
	stmtCDCTarget           = load("cdc_target")
	stmtCDCMarkPublished    = load("cdc_mark_published")
	stmtCDCStartReplication = &Statement{Name: "start_replication",
		SQL: "START_REPLICATION SLOT <slot> LOGICAL <confirmed_flush_lsn> (proto_version '1', publication_names '" + cdcPublication + "')"}
	stmtCDCReceive = &Statement{Name: "receive_from_slot",
		SQL: "CopyData on the START_REPLICATION stream: pgoutput's Relation, Begin, Insert, Commit up to the step's WAL position"}
	stmtCDCConfirm = &Statement{Name: "standby_status_update",
		SQL: "StandbyStatusUpdate (write = flush = apply = <lsn>): the slot's confirmed_flush_lsn"}
)

// CDCPublishedDetail is the detail of a CDC relay's relay.published: how a
// timeline tells it from a polling relay's, which has a lease to speak of.
const CDCPublishedDetail = "accepted by the broker, LSN not confirmed yet"

// cdcPublication is the publication of the outbox's inserts (pg/schema/006).
const cdcPublication = "outboxlab_outbox"

// ErrWALLevel means the server cannot decode its WAL logically: the CDC relay
// needs wal_level = logical, which only a server restart changes.
var ErrWALLevel = errors.New("the CDC relay needs wal_level = logical")

// ErrSlotBlocked means the CDC relay's slot could not be made within
// RelayConfig.SlotWait: making a logical slot waits for every transaction
// open at that moment to end, and one did not. The error is a
// *SlotBlockedError, which names them.
var ErrSlotBlocked = errors.New("the CDC relay's replication slot is waiting for open transactions")

// SlotBlockedError is ErrSlotBlocked with the slot and the sessions whose
// transactions it waited for (pg_stat_activity).
type SlotBlockedError struct {
	Slot     string
	Waited   time.Duration
	Blockers []SlotBlocker
}

// SlotBlocker is a session with a transaction open since before the slot
// was asked for: its pid, state and query (cut short).
type SlotBlocker struct {
	PID   int32
	State string
	Query string
}

func (e *SlotBlockedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cdc relay: %v: slot %s not made within %s", ErrSlotBlocked, e.Slot, e.Waited)
	if len(e.Blockers) == 0 {
		b.WriteString("; no session holds a transaction open now: start again")
		return b.String()
	}
	b.WriteString(", blocked by")
	pids := make([]string, len(e.Blockers))
	for i, x := range e.Blockers {
		pids[i] = strconv.Itoa(int(x.PID))
		fmt.Fprintf(&b, " pid %d (%s: %q)", x.PID, x.State, x.Query)
		if i < len(e.Blockers)-1 {
			b.WriteByte(',')
		}
	}
	fmt.Fprintf(&b, ": end that transaction (COMMIT or ROLLBACK in its session, or SELECT pg_terminate_backend(%s)) and start again", strings.Join(pids, "), pg_terminate_backend("))
	return b.String()
}

// Is makes errors.Is(err, ErrSlotBlocked) hold.
func (e *SlotBlockedError) Is(target error) bool { return target == ErrSlotBlocked }

// cdcWait bounds how long a step waits for the server to stream up to its
// target, or to answer a confirmation; a healthy server takes milliseconds.
const cdcWait = 10 * time.Second

// cdcStream is the CDC relay's state beyond its SQL connection: the slot, the
// replication connection (actor.repl) and what it received and has not
// confirmed. A crash forgets all but the slot's name: the server's slot
// is the only memory of progress.
type cdcStream struct {
	slot      string
	prepared  bool
	confirmed pglogrepl.LSN // what this life confirmed (or started from)
	relations map[uint32]*pglogrepl.RelationMessage
	open      *cdcTxn   // a transaction whose COMMIT has not been received
	pending   []*cdcTxn // received, not all published
	// now is the step's time, read once: how many status updates a step
	// sends depends on the server's pace, and a simulator's clock ticks at
	// every read.
	now time.Time
}

// cdcTxn is one committed transaction's outbox inserts.
type cdcTxn struct {
	msgs []ClaimedMessage
	sent int           // how many of msgs the broker accepted
	end  pglogrepl.LSN // TransactionEndLSN: confirming it releases the transaction
}

// Slot is the CDC relay's replication slot name ("" before its first step).
func (r *Relay) Slot() string { return r.cdc.slot }

// OpenSlot checks wal_level and makes this relay's slot if it has none. A
// slot streams what commits after it was made, and making it waits for open
// transactions: the simulator opens it before any request is sent. Step
// calls it when nobody did.
func (r *Relay) OpenSlot(ctx context.Context) error {
	if r.cdc.prepared {
		return nil
	}
	c, err := r.conn(ctx)
	if err != nil {
		return fmt.Errorf("cdc relay: %w", err)
	}
	// The checks before the slot is made are not noted: the timeline shows
	// the slot being made (cdc_create_slot), not what the relay checked first.
	var level string
	if err := queryRowOn(ctx, c, stmtCDCWalLevel).Scan(&level); err != nil {
		return fmt.Errorf("cdc relay %w", err)
	}
	if level != "logical" {
		return fmt.Errorf("%w, and the server has wal_level = %s: set wal_level = logical in its postgresql.conf (or ALTER SYSTEM SET wal_level = logical) and restart it, or run without --database-url to use outboxlab's own server, which starts with it", ErrWALLevel, level)
	}
	// pgoutput does not insist on its publication (PostgreSQL 18 warns
	// and streams nothing): a database without it would look idle for ever.
	var published int
	if err := queryRowOn(ctx, c, stmtCDCPublication, cdcPublication).Scan(&published); err != nil {
		return fmt.Errorf("cdc relay %w", err)
	}
	if published == 0 {
		return fmt.Errorf("cdc relay: database %s has no publication %s of outbox_messages (pg/schema/006): its schema is older than this outboxlab; start with --fresh or another --data-dir", c.Config().Database, cdcPublication)
	}
	if err := queryRowOn(ctx, c, stmtCDCSlotName, slotSuffix(r.name), slotname.Prefix).Scan(&r.cdc.slot); err != nil {
		return fmt.Errorf("cdc relay %w", err)
	}
	if err := r.createSlot(ctx, c); err != nil {
		return err
	}
	r.cdc.prepared = true
	return nil
}

// createSlot makes the slot, waiting SlotWait at most for the transactions
// open now to end. The server bounds the wait (statement_timeout): it then
// cancels the statement, the half-made slot goes with it, and the
// connection stays. A context deadline would cut the connection instead and
// leave its backend waiting, to make the slot after the relay gave up. The
// context's deadline only guards against a server that does not answer.
func (r *Relay) createSlot(ctx context.Context, c *pgx.Conn) error {
	wait := r.cfg.SlotWait
	ms := (wait + time.Millisecond - 1) / time.Millisecond
	// The SET and RESET around the slot's making are part of it: their
	// errors are cdc_create_slot's.
	if _, err := c.Exec(ctx, "SET statement_timeout = "+strconv.FormatInt(int64(ms), 10)); err != nil {
		return fmt.Errorf("cdc relay %w", stmtError(stmtCDCCreateSlot, err))
	}
	wctx, cancel := context.WithTimeout(ctx, wait+cdcWait)
	defer cancel()
	_, err := r.exec(wctx, c, stmtCDCCreateSlot, r.cdc.slot)
	if !c.IsClosed() {
		if _, rerr := c.Exec(ctx, "RESET statement_timeout"); rerr != nil && err == nil {
			err = stmtError(stmtCDCCreateSlot, rerr)
		}
	}
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &pgErr) || pgErr.Code != "57014" || ctx.Err() != nil:
		return fmt.Errorf("cdc relay, slot %s: %w", r.cdc.slot, err)
	}
	blocked := &SlotBlockedError{Slot: r.cdc.slot, Waited: wait}
	// Not noted: the relay asks who held the slot up only to say so in its error.
	if err := queryOn(ctx, c, stmtCDCSlotBlockers, collectInto(&blocked.Blockers, pgx.RowToStructByPos[SlotBlocker]), wait); err != nil {
		return fmt.Errorf("%w (and %w)", blocked, err)
	}
	return blocked
}

// EndStream closes the replication connection (the relay's other connection
// stays): what a process that stops without crashing does. The slot keeps
// the position last confirmed.
func (r *Relay) EndStream() {
	if r.repl != nil {
		_ = r.repl.Close(context.Background())
		r.repl = nil
	}
}

// Kill is the relay's process dying between steps, with nothing in flight:
// its sockets close with no Terminate message, as a killed process's do.
// For a CDC relay that ends its stream: the server's walsender sees the
// socket close and lets go of the slot, which a restarted relay can then
// take (a slot streams to one session at a time). A relay that is only
// forgotten keeps its replication connection open, and its walsender
// holds the slot for as long as this process lives.
func (r *Relay) Kill() {
	r.closeListen()
	r.die()
}

// slotSuffix makes an actor name fit a slot name ([a-z0-9_]).
func slotSuffix(name string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(name) {
		if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// stepCDC is one iteration: receive what the server committed before the
// step began (up to a marker the step writes in the WAL, cdc_target.sql), publish each insert, mark it (for
// retention and the figures), then confirm the LSN to the slot. The
// checkpoints relay.received, relay.published and relay.marked all come
// before the confirmation: a crash at any of them restarts the stream at the
// last confirmed position and republishes the same ids.
func (r *Relay) stepCDC(ctx context.Context, c *pgx.Conn, res *RelayStepResult) error {
	if err := r.OpenSlot(ctx); err != nil {
		return err
	}
	r.cdc.now = r.clock.Now()
	var raw string
	if err := r.queryRow(ctx, c, stmtCDCTarget).Scan(&raw); err != nil {
		return fmt.Errorf("cdc relay %w", err)
	}
	target, err := pglogrepl.ParseLSN(raw)
	if err != nil {
		return fmt.Errorf("cdc relay %s: %w", stmtCDCTarget.Name, err)
	}
	if r.repl == nil || r.repl.IsClosed() {
		if err := r.startStream(ctx, c); err != nil {
			return err
		}
	}
	reached, fresh, err := r.receiveUpTo(ctx, target)
	if err != nil {
		return err
	}
	var ids []uuid.UUID
	for _, t := range fresh {
		for _, m := range t.msgs {
			ids = append(ids, m.ID)
		}
	}
	res.Claimed = len(ids)
	if len(fresh) > 0 {
		r.cfg.Counters.add(&r.cfg.Counters.Claimed, len(ids))
		ev := Event{Checkpoint: RelayReceived, Statement: stmtCDCReceive, Rows: int64(len(ids)), MessageIDs: ids,
			Detail: Say("%d in %d transaction(s)", len(ids), len(fresh))}
		if err := r.stopAt(ctx, RelayReceived, r.checkpoint(ctx, ev)); err != nil {
			return err
		}
	}
	if len(r.cdc.pending) == 0 {
		// Nothing of the outbox's: confirming what was streamed still lets
		// the server free the WAL of everything else.
		res.Idle = true
		return r.confirm(ctx, c, reached, false)
	}
	published, upTo, err := r.publishPending(ctx, res)
	if err != nil {
		return err
	}
	if len(published) == 0 {
		// The broker refused the first: nothing moved, nothing to confirm.
		// Idle, so a simulator's run does not spin; the next step tries
		// what is pending again (there is no backoff to wait for).
		res.Idle = true
		return nil
	}
	if len(published) > 0 {
		var got []uuid.UUID
		if err := r.query(ctx, c, stmtCDCMarkPublished, collectInto(&got, pgx.RowTo[uuid.UUID]), published, r.clock.Now()); err != nil {
			return fmt.Errorf("cdc relay %w", err)
		}
		res.Marked += len(got)
		r.cfg.Counters.add(&r.cfg.Counters.Marked, len(got))
		ev := Event{Checkpoint: RelayMarked, Statement: stmtCDCMarkPublished, Rows: int64(len(got)), MessageIDs: published,
			Detail: Say("for retention only")}
		if err := r.stopAt(ctx, RelayMarked, r.checkpoint(ctx, ev)); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("cdc relay: %w", ctx.Err())
	}
	if len(r.cdc.pending) == 0 && reached > upTo {
		upTo = reached
	}
	return r.confirm(ctx, c, upTo, true)
}

// publishPending publishes what was received, in commit order, and returns
// the ids the broker accepted and the end of the last transaction now fully
// published. A refused publish stops there: the rest stays pending (and
// unconfirmed) for the next step. An error is the hook's (a crash).
func (r *Relay) publishPending(ctx context.Context, res *RelayStepResult) ([]uuid.UUID, pglogrepl.LSN, error) {
	var published []uuid.UUID
	upTo := r.cdc.confirmed
	for len(r.cdc.pending) > 0 {
		t := r.cdc.pending[0]
		for t.sent < len(t.msgs) {
			m := t.msgs[t.sent]
			dup, err := r.publishOne(ctx, m, trace.SpanContext{})
			if err != nil {
				if ctx.Err() != nil {
					return published, upTo, fmt.Errorf("cdc relay publish %s: %w", m.ID, ctx.Err())
				}
				r.cfg.Counters.add(&r.cfg.Counters.PublishFailures, 1)
				return published, upTo, nil
			}
			t.sent++
			res.Published++
			if dup {
				res.DedupDropped++
			}
			published = append(published, m.ID)
			res.MessageIDs = append(res.MessageIDs, m.ID)
			r.cfg.Counters.add(&r.cfg.Counters.Published, 1)
			r.cfg.Counters.observe(&r.cfg.Counters.OccurredToPublished, r.clock.Now().Sub(m.OccurredAt))
			ev := Event{Checkpoint: RelayPublished, MessageIDs: []uuid.UUID{m.ID},
				Detail: Say(CDCPublishedDetail)}
			if err := r.stopAt(ctx, RelayPublished, r.checkpoint(ctx, ev)); err != nil {
				return published, upTo, err // nothing is confirmed
			}
		}
		upTo = t.end
		r.cdc.pending = r.cdc.pending[1:]
	}
	return published, upTo, nil
}

// startStream opens the replication connection and starts streaming from the
// slot's confirmed position: a restarted relay receives again everything it
// received and did not confirm.
func (r *Relay) startStream(ctx context.Context, c *pgx.Conn) error {
	r.cdc.pending, r.cdc.open = nil, nil
	r.cdc.relations = map[uint32]*pglogrepl.RelationMessage{}
	var (
		raw    pgtype.Text
		active pgtype.Int4
	)
	wctx, cancel := context.WithTimeout(ctx, cdcWait)
	defer cancel()
	for {
		// Not noted: how many times the relay asks is the server's timing,
		// and a timeline must read the same on every run.
		if err := queryRowOn(ctx, c, stmtCDCSlotState, r.cdc.slot).Scan(&raw, &active); err != nil {
			return fmt.Errorf("cdc relay, slot %s: %w", r.cdc.slot, err)
		}
		if !active.Valid {
			break
		}
		if wctx.Err() != nil && ctx.Err() == nil {
			return fmt.Errorf("cdc relay: slot %s is still streamed by pid %d", r.cdc.slot, active.Int32)
		}
		if _, err := r.exec(ctx, c, stmtCDCEndStaleSender, r.cdc.slot); err != nil {
			return fmt.Errorf("cdc relay %w", err)
		}
		if err := sleep(ctx, 5*time.Millisecond); err != nil {
			return fmt.Errorf("cdc relay: %w", err)
		}
	}
	cancel()
	from, err := pglogrepl.ParseLSN(raw.String)
	if err != nil {
		return fmt.Errorf("cdc relay: slot %s confirmed_flush_lsn %q: %w", r.cdc.slot, raw.String, err)
	}
	cfg := c.Config().Config.Copy()
	cfg.RuntimeParams["replication"] = "database"
	// Named as the actor, like its SQL connection (a simulator names an
	// idle connection it lends with SET): the walsender is the actor's too.
	if name := c.PgConn().ParameterStatus("application_name"); name != "" {
		cfg.RuntimeParams["application_name"] = name
	}
	// The simulator may leave a relay paused for as long as the learner
	// reads: the server must not end a stream that is quiet.
	cfg.RuntimeParams["wal_sender_timeout"] = "0"
	// A receive that times out keeps the stream (the default handler would
	// send a cancel request, which ends it).
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: pc.Conn()}
	}
	pc, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("cdc relay: replication connection: %w", mapDBError(err))
	}
	r.note(stmtCDCStartReplication)
	err = pglogrepl.StartReplication(ctx, pc, r.cdc.slot, from, pglogrepl.StartReplicationOptions{
		PluginArgs: []string{"proto_version '1'", "publication_names '" + cdcPublication + "'"},
	})
	if err != nil {
		_ = pc.Close(context.WithoutCancel(ctx))
		return fmt.Errorf("cdc relay: start replication from %s at %s: %w", r.cdc.slot, from, err)
	}
	r.repl = pc
	r.cdc.confirmed = from
	return nil
}

// receiveUpTo reads the stream until the server says it has sent everything
// up to target (a keepalive, asked for by a status update with
// ReplyRequested, carries how far it has sent). It returns that position and
// the transactions received, which it also appends to pending. It asks
// again only when the stream is quiet: each ask is answered, and asking at
// every answer would keep a queue of stale answers ahead of the fresh one.
func (r *Relay) receiveUpTo(ctx context.Context, target pglogrepl.LSN) (pglogrepl.LSN, []*cdcTxn, error) {
	var fresh []*cdcTxn
	// How long the server may take is real time, against the network: a
	// context deadline (the engine reads time only from its Clock).
	wctx, cancel := context.WithTimeout(ctx, cdcWait)
	defer cancel()
	if err := r.sendStatus(ctx, true); err != nil {
		return 0, nil, err
	}
	for {
		if wctx.Err() != nil && ctx.Err() == nil {
			return 0, nil, fmt.Errorf("cdc relay: the server did not stream %s up to %s within %s", r.cdc.slot, target, cdcWait)
		}
		wal, txn, err := r.receiveOne(ctx)
		if err != nil {
			return 0, nil, err
		}
		if txn != nil {
			fresh = append(fresh, txn)
			r.cdc.pending = append(r.cdc.pending, txn)
		}
		if wal >= target && r.cdc.open == nil {
			return wal, fresh, nil
		}
	}
}

// receiveOne reads one message, waiting a little: a keepalive's WAL end, or
// a transaction completed by a COMMIT. A read that times out (the stream is
// quiet) asks the server again and returns neither.
func (r *Relay) receiveOne(ctx context.Context) (pglogrepl.LSN, *cdcTxn, error) {
	rctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	msg, err := r.repl.ReceiveMessage(rctx)
	cancel()
	if err != nil {
		if pgconn.Timeout(err) && ctx.Err() == nil {
			return 0, nil, r.sendStatus(ctx, true)
		}
		return 0, nil, fmt.Errorf("cdc relay: receive from %s: %w", r.cdc.slot, mapDBError(err))
	}
	switch msg := msg.(type) {
	case *pgproto3.CopyData:
		if len(msg.Data) == 0 {
			return 0, nil, nil
		}
		switch msg.Data[0] {
		case pglogrepl.PrimaryKeepaliveMessageByteID:
			k, err := pglogrepl.ParsePrimaryKeepaliveMessage(msg.Data[1:])
			if err != nil {
				return 0, nil, fmt.Errorf("cdc relay: keepalive: %w", err)
			}
			return k.ServerWALEnd, nil, nil
		case pglogrepl.XLogDataByteID:
			x, err := pglogrepl.ParseXLogData(msg.Data[1:])
			if err != nil {
				return 0, nil, fmt.Errorf("cdc relay: xlog data: %w", err)
			}
			txn, err := r.decode(x.WALData)
			return 0, txn, err
		}
		return 0, nil, nil
	case *pgproto3.ErrorResponse:
		return 0, nil, fmt.Errorf("cdc relay: %s: %w", r.cdc.slot, pgconn.ErrorResponseToPgError(msg))
	default:
		return 0, nil, nil
	}
}

// sendStatus sends the position this life has confirmed; reply asks the
// server to answer at once with a keepalive.
func (r *Relay) sendStatus(ctx context.Context, reply bool) error {
	err := pglogrepl.SendStandbyStatusUpdate(ctx, r.repl, pglogrepl.StandbyStatusUpdate{
		WALWritePosition: r.cdc.confirmed, ClientTime: r.cdc.now, ReplyRequested: reply})
	if err != nil {
		return fmt.Errorf("cdc relay: status update to %s: %w", r.cdc.slot, mapDBError(err))
	}
	return nil
}

// decode reads one pgoutput message; it returns a transaction at its COMMIT.
func (r *Relay) decode(data []byte) (*cdcTxn, error) {
	m, err := pglogrepl.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("cdc relay: pgoutput: %w", err)
	}
	switch m := m.(type) {
	case *pglogrepl.RelationMessage:
		r.cdc.relations[m.RelationID] = m
	case *pglogrepl.BeginMessage:
		r.cdc.open = &cdcTxn{}
	case *pglogrepl.InsertMessage:
		rel, ok := r.cdc.relations[m.RelationID]
		if !ok || r.cdc.open == nil {
			return nil, fmt.Errorf("cdc relay: an insert into relation %d outside what the stream described", m.RelationID)
		}
		msg, err := envelopeOf(rel, m.Tuple)
		if err != nil {
			return nil, fmt.Errorf("cdc relay: %s.%s: %w", rel.Namespace, rel.RelationName, err)
		}
		r.cdc.open.msgs = append(r.cdc.open.msgs, msg)
	case *pglogrepl.CommitMessage:
		t := r.cdc.open
		r.cdc.open = nil
		if t == nil || len(t.msgs) == 0 {
			return nil, nil // a transaction that inserted no outbox row
		}
		t.end = m.TransactionEndLSN
		return t, nil
	}
	return nil, nil
}

// envelopeOf reads an outbox row from pgoutput's text tuple.
func envelopeOf(rel *pglogrepl.RelationMessage, tuple *pglogrepl.TupleData) (ClaimedMessage, error) {
	var m ClaimedMessage
	if tuple == nil {
		return m, errors.New("an insert with no tuple")
	}
	for i, col := range tuple.Columns {
		if i >= len(rel.Columns) || col.DataType != 't' {
			continue // NULL (trace_parent, published_at…) or unchanged
		}
		v := string(col.Data)
		var err error
		switch rel.Columns[i].Name {
		case "id":
			m.ID, err = uuid.Parse(v)
		case "aggregate_type":
			m.AggregateType = v
		case "aggregate_id":
			m.AggregateID = v
		case "aggregate_version":
			m.AggregateVersion, err = strconv.ParseInt(v, 10, 64)
		case "event_type":
			m.Type = v
		case "schema_version":
			m.SchemaVersion, err = strconv.Atoi(v)
		case "payload":
			m.Payload = append([]byte(nil), col.Data...)
		case "trace_parent":
			m.TraceParent = v
		case "occurred_at":
			var ts pgtype.Timestamptz
			if err = ts.Scan(v); err == nil {
				m.OccurredAt = ts.Time
			}
		}
		if err != nil {
			return m, fmt.Errorf("column %s %q: %w", rel.Columns[i].Name, v, err)
		}
	}
	if m.ID == uuid.Nil {
		return m, errors.New("an outbox row with no id")
	}
	m.Attempts = 1
	return m, nil
}

// confirm tells the slot the relay is done with everything up to lsn and
// waits until pg_replication_slots shows it (the walsender applies a status
// update when it reads it), so a figure read after the step sees it. report
// says whether the timeline hears of it.
func (r *Relay) confirm(ctx context.Context, c *pgx.Conn, lsn pglogrepl.LSN, report bool) error {
	if lsn <= r.cdc.confirmed {
		return nil
	}
	r.cdc.confirmed = lsn
	r.note(stmtCDCConfirm)
	// No reply asked: pg_replication_slots says when it is taken.
	if err := r.sendStatus(ctx, false); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, cdcWait)
	defer cancel()
	for {
		var (
			raw    pgtype.Text
			active pgtype.Int4
		)
		// Not noted, as in startStream: a wait on the server.
		if err := queryRowOn(ctx, c, stmtCDCSlotState, r.cdc.slot).Scan(&raw, &active); err != nil {
			return fmt.Errorf("cdc relay, slot %s: %w", r.cdc.slot, err)
		}
		if got, err := pglogrepl.ParseLSN(raw.String); err == nil && got >= lsn {
			break
		}
		if wctx.Err() != nil && ctx.Err() == nil {
			return fmt.Errorf("cdc relay: slot %s did not take the confirmation of %s within %s", r.cdc.slot, lsn, cdcWait)
		}
		if err := sleep(ctx, time.Millisecond); err != nil {
			return fmt.Errorf("cdc relay: %w", err)
		}
	}
	if !report {
		return nil
	}
	ev := Event{Checkpoint: RelayConfirmed, Statement: stmtCDCConfirm,
		Detail: Say("LSN confirmed")}
	return r.stopAt(ctx, RelayConfirmed, r.checkpoint(ctx, ev))
}
