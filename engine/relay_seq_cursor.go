package engine

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"go.opentelemetry.io/otel/trace"
)

// stepBySeq is one iteration the wrong way (Watermill #311): read
// the rows after this relay's cursor in seq order, publish them, mark them
// and move the cursor past the highest seq read (relay_offsets).
//
// Why it loses events: seq comes from a sequence when the INSERT runs, not
// when its transaction commits, and a poll sees committed rows only. Writer A
// inserts (seq 1) and has not committed; writer B inserts (seq 2) and commits;
// the relay polls, sees seq 2, publishes it and moves its cursor to 2; A
// commits. Every later poll asks for seq > 2: A's row is committed, never
// published, and nothing will ever read it again. The right relay
// (claim_batch.sql) asks for published_at IS NULL instead, so a row is ready
// whenever its transaction commits, whatever its place in any order.
//
// No lease and no SKIP LOCKED either: two such relays publish every row
// twice. A publish the broker refuses stops the batch; the cursor moves only
// past what was published, so the rest is read again on the next poll. With
// no attempts, backoff or dead letter, a message the broker always refuses
// holds every later one back for ever; a step that published nothing
// reports Idle, so the caller waits for its poll interval (Run) or for
// something to change (the simulator) instead of spinning.
func (r *Relay) stepBySeq(ctx context.Context, c *pgx.Conn, res *RelayStepResult) error {
	var (
		msgs []ClaimedMessage
		seqs []int64
	)
	err := r.query(ctx, c, stmtPollBySeq, func(rows pgx.Rows) (err error) {
		msgs, seqs, err = scanPolled(rows)
		return err
	}, r.name, r.cfg.BatchSize)
	if err != nil {
		return fmt.Errorf("relay %w", err)
	}
	res.Claimed = len(msgs)
	if res.Idle = len(msgs) == 0; res.Idle {
		return nil
	}
	for _, m := range msgs {
		res.MessageIDs = append(res.MessageIDs, m.ID)
	}
	r.cfg.Counters.add(&r.cfg.Counters.Claimed, len(msgs))
	ev := Event{Checkpoint: RelayClaimed, Statement: stmtPollBySeq, Rows: int64(len(msgs)), MessageIDs: res.MessageIDs,
		Detail: Say("seq %d to %d", seqs[0], seqs[len(seqs)-1])}
	if err := r.stopAt(ctx, RelayClaimed, r.checkpoint(ctx, ev)); err != nil {
		return err
	}
	published := make([]uuid.UUID, 0, len(msgs))
	var last int64
	for i, m := range msgs {
		if _, perr := r.publishOne(ctx, m, trace.SpanContext{}); perr != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("relay publish %s: %w", m.ID, ctx.Err())
			}
			r.cfg.Counters.add(&r.cfg.Counters.PublishFailures, 1)
			break
		}
		res.Published++
		published = append(published, m.ID)
		last = seqs[i]
		r.cfg.Counters.add(&r.cfg.Counters.Published, 1)
		r.cfg.Counters.observe(&r.cfg.Counters.OccurredToPublished, r.clock.Now().Sub(m.OccurredAt))
		ev := Event{Checkpoint: RelayPublished, MessageIDs: []uuid.UUID{m.ID},
			Detail: Say("seq %d accepted by the broker, cursor not moved yet", seqs[i])}
		if err := r.stopAt(ctx, RelayPublished, r.checkpoint(ctx, ev)); err != nil {
			return err
		}
	}
	if len(published) == 0 {
		res.Idle = true
		return nil
	}
	var got []uuid.UUID
	if err := r.query(ctx, c, stmtAdvanceCursor, collectInto(&got, pgx.RowTo[uuid.UUID]), published, r.name, r.clock.Now(), last); err != nil {
		return fmt.Errorf("relay %w", err)
	}
	res.Marked += len(got)
	r.cfg.Counters.add(&r.cfg.Counters.Marked, len(got))
	ev = Event{Checkpoint: RelayMarked, Statement: stmtAdvanceCursor, Rows: int64(len(got)), MessageIDs: got,
		Detail: Say("cursor now seq %d", last)}
	return r.stopAt(ctx, RelayMarked, r.checkpoint(ctx, ev))
}

// scanPolled reads poll_by_seq's rows, in seq order, with their seqs.
func scanPolled(rows pgx.Rows) ([]ClaimedMessage, []int64, error) {
	var msgs []ClaimedMessage
	var seqs []int64
	for rows.Next() {
		var (
			m        ClaimedMessage
			tp       pgtype.Text
			attempts int32
			payload  []byte
			seq      int64
		)
		if err := rows.Scan(&m.ID, &m.AggregateType, &m.AggregateID, &m.AggregateVersion, &m.Type, &m.SchemaVersion,
			&payload, &tp, &m.OccurredAt, &attempts, &seq); err != nil {
			return nil, nil, err
		}
		m.Payload = payload
		m.Attempts = int(attempts)
		m.TraceParent = tp.String
		msgs = append(msgs, m)
		seqs = append(seqs, seq)
	}
	return msgs, seqs, rows.Err()
}
