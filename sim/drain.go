package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// maxDrainRounds bounds a drain; each round either changes the database or
// jumps the clock to the next outbox retry, so a real run needs a few dozen.
const maxDrainRounds = 500

// drain runs the pipelines until nothing is pending: whenever no actor can
// move, a supervisor restarts crashed actors and the clock jumps to the next
// moment something becomes due (a retry's next_attempt_at, an expired lease,
// a broker redelivery). Lost events are judged after a drain: what a drained
// system never delivered, it never will.
//
// A drain also ends when nothing can change without the learner — a stalled
// actor, a broker that is down, an event refused on every delivery because
// its predecessor is dead-lettered — and then the timeline says what waits
// and which command frees it, so the scene's next line (a resume, a requeue)
// runs.
func (s *Sim) drain(ctx context.Context) error {
	var last string
	start := s.version
	for round := 0; round < maxDrainRounds; round++ {
		if err := s.runQuiet(ctx); err != nil {
			return err
		}
		restarted := false
		for _, p := range s.pipes {
			for _, r := range p.runners {
				if r.state == Crashed {
					if err := s.restart(r, true); err != nil {
						return err
					}
					restarted = true
				}
			}
		}
		if restarted {
			continue
		}
		next, outbox, pending, err := s.nextDue(ctx)
		if err != nil {
			return err
		}
		if !pending {
			if s.version == start {
				s.record(Entry{Actor: "drain", Kind: KindNote}.with(text("nothing is pending: the drain has nothing to do")))
			}
			return s.parkedForGood(ctx)
		}
		now := s.clock.Peek()
		fp, err := s.progress(ctx)
		if err != nil {
			return err
		}
		if next.IsZero() || !next.After(now) || fp == last {
			later := s.laterChange(outbox, now)
			if later.IsZero() {
				return s.drainStopped(ctx)
			}
			if !next.After(now) || later.After(next) {
				next = later
			}
		}
		last = fp
		d := next.Sub(now).Truncate(time.Millisecond) + time.Millisecond
		s.advance(d)
	}
	why, err := s.waiting(ctx)
	if err != nil {
		return err
	}
	parts := make([]string, len(why))
	for i, w := range why {
		parts[i] = w.English()
	}
	return fmt.Errorf("not drained after %d rounds: %s", maxDrainRounds, strings.Join(parts, "; "))
}

// drainStopped records why a drain ends with work pending.
func (s *Sim) drainStopped(ctx context.Context) error {
	why, err := s.waiting(ctx)
	if err != nil {
		return err
	}
	// The cause first: a narrow timeline cuts the end of a line.
	s.record(Entry{Actor: "drain", Kind: KindStuck}.with(text("%s — the drain stops: nothing more happens without you", why)))
	return nil
}

// progress is a fingerprint of every pipeline's database and broker queues.
func (s *Sim) progress(ctx context.Context) (string, error) {
	var b strings.Builder
	for _, p := range s.pipes {
		var n [7]int64
		if err := p.pool.QueryRow(ctx, sqlProgress).Scan(&n[0], &n[1], &n[2], &n[3], &n[4], &n[5], &n[6]); err != nil {
			return "", fmt.Errorf("drain progress: %w", err)
		}
		st := p.broker.Stats()
		fmt.Fprintf(&b, "%s %v %d %v %v;", p.Kind, n, st.Published, st.Queued, st.InFlight)
	}
	return b.String(), nil
}

// waiting says what is still pending and what would free it, one clause a
// cause, each naming the command (a key in the TUI) that moves it on.
func (s *Sim) waiting(ctx context.Context) ([]Text, error) {
	var why []Text
	add := func(t Text) {
		if !slices.ContainsFunc(why, func(w Text) bool { return w.English() == t.English() }) {
			why = append(why, t)
		}
	}
	for _, p := range s.pipes {
		for _, r := range p.runners {
			switch r.state {
			case Stalled:
				add(text("%s is stalled at %s: `resume %s`", r.name, r.at, r.name))
			case Blocked:
				add(text("%s waits for a row lock another transaction holds", r.name))
			case Crashed:
				add(text("%s has crashed: `restart %s`", r.name, r.name))
			}
		}
		if p.broker.Down() {
			add(text("the broker is down: `broker up`"))
		}
		if p.Kind != "outbox" {
			continue
		}
		blocked, err := p.blockedByDeadLetter(ctx)
		if err != nil {
			return nil, err
		}
		for _, b := range blocked {
			add(text("aggregate …%s: version %d waits for version %d (…%s), which is dead-lettered: `requeue` it", b.aggregate, b.version, b.deadVersion, b.deadID))
		}
		var behind int
		var cursor *int64
		if err := p.pool.QueryRow(ctx, sqlBehindCursor).Scan(&behind, &cursor); err != nil {
			return nil, fmt.Errorf("rows behind the seq cursor: %w", err)
		}
		if behind > 0 && cursor != nil {
			add(text("%d committed row(s) at or below the relay's cursor (seq %d): no poll will ever read them, they are lost", behind, *cursor))
		}
		if s.settings.CDC && !p.broker.Down() {
			held, err := p.heldStream(ctx)
			if err != nil {
				return nil, err
			}
			if held.n > 0 {
				add(text("%d event(s) wait behind %s in the CDC relay's stream: the broker refuses it every time, and a stream has no dead letter (no attempts, nothing to skip it), so nothing after it is published", held.n, short(held.poison)))
			}
		}
		var stranded int
		var example *uuid.UUID
		if err := p.pool.QueryRow(ctx, sqlStranded, p.liveWorkers()).Scan(&stranded, &example); err != nil {
			return nil, fmt.Errorf("rows leased for ever: %w", err)
		}
		if stranded > 0 && example != nil {
			add(text("%d row(s) (%s) leased with no end by a relay that died: its restart is a new worker and no relay may claim a lease that never expires, so they are lost", stranded, short(*example)))
		}
	}
	if st := s.moving(); len(st) > 0 {
		add(text("the broker keeps redelivering: %s", list(st)))
	}
	if len(why) == 0 {
		why = append(why, text("messages are pending but nothing can take them"))
	}
	return why, nil
}

// heldStream finds a poison message among the pending rows of a CDC
// relay's pipeline: the stream publishes in commit order and stops at the
// first the broker refuses. n counts the pending rows (0: none is poison).
func (p *Pipeline) heldStream(ctx context.Context) (struct {
	n      int
	poison uuid.UUID
}, error) {
	var out struct {
		n      int
		poison uuid.UUID
	}
	rows, err := p.pool.Query(ctx, sqlPendingIDs)
	if err != nil {
		return out, fmt.Errorf("pending rows: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return out, fmt.Errorf("pending rows: %w", err)
	}
	for _, id := range ids {
		if p.sim.poison[id] {
			out.n, out.poison = len(ids), id
			break
		}
	}
	return out, nil
}

// moving names the messages the broker keeps handing out again: what goes
// round while nothing changes.
func (s *Sim) moving() []Text {
	var parts []Text
	for _, p := range s.pipes {
		for _, u := range p.broker.Unsettled() {
			if u.Count > 1 {
				parts = append(parts, text("%s to %s (%d deliveries)", short(u.Message.ID), u.Subscription, u.Count))
			}
		}
	}
	if len(parts) > 3 {
		parts = append(parts[:3], text("and %d more", len(parts)-3))
	}
	return parts
}

type deadBlock struct {
	aggregate, deadID    string
	version, deadVersion int64
}

// blockedByDeadLetter lists the events that wait for a dead-lettered
// predecessor and are still with the broker (refused on each delivery).
func (p *Pipeline) blockedByDeadLetter(ctx context.Context) ([]deadBlock, error) {
	held := map[uuid.UUID]bool{}
	for _, u := range p.broker.Unsettled() {
		held[u.Message.ID] = true
	}
	rows, err := p.pool.Query(ctx, sqlBlockedByDeadLetter)
	if err != nil {
		return nil, fmt.Errorf("events behind a dead letter: %w", err)
	}
	defer rows.Close()
	var out []deadBlock
	for rows.Next() {
		var id uuid.UUID
		var b deadBlock
		if err := rows.Scan(&id, &b.aggregate, &b.version, &b.deadVersion, &b.deadID); err != nil {
			return nil, fmt.Errorf("events behind a dead letter: %w", err)
		}
		if held[id] {
			out = append(out, b)
		}
	}
	return out, rows.Err()
}

// nextDue finds when something pending becomes due: the earliest retry or
// lease expiry in any outbox, or the earliest broker redelivery; outbox is
// the outbox part alone (zero when no row is pending).
func (s *Sim) nextDue(ctx context.Context) (next, outbox time.Time, pending bool, err error) {
	earliest := func(t *time.Time, c time.Time) {
		if !c.IsZero() && (t.IsZero() || c.Before(*t)) {
			*t = c
		}
	}
	for _, p := range s.pipes {
		if p.Kind == "outbox" {
			var n int
			var due *time.Time
			if err := p.pool.QueryRow(ctx, sqlNextDue).Scan(&n, &due); err != nil {
				return next, outbox, false, fmt.Errorf("next due: %w", err)
			}
			if n > 0 {
				pending = true
			}
			if due != nil {
				earliest(&outbox, *due)
			}
		}
		if t, ok := p.broker.NextDue(); ok {
			pending = true
			earliest(&next, t)
		} else if p.unsettled() {
			pending = true
		}
	}
	earliest(&next, outbox)
	return next, outbox, pending, nil
}

// unsettled reports whether the broker holds undelivered or unacked messages.
func (p *Pipeline) unsettled() bool {
	st := p.broker.Stats()
	for _, n := range st.Queued {
		if n > 0 {
			return true
		}
	}
	for _, n := range st.InFlight {
		if n > 0 {
			return true
		}
	}
	return false
}

// laterChange is the earliest moment after now that can still change
// something: the outbox's next retry or lease end (outbox), or a delivery's
// ACK deadline. Zero when there is none.
func (s *Sim) laterChange(outbox, now time.Time) time.Time {
	later := outbox
	if !later.After(now) {
		later = time.Time{}
	}
	for _, p := range s.pipes {
		if t, ok := p.broker.NextAckDeadline(); ok && t.After(now) && (later.IsZero() || t.Before(later)) {
			later = t
		}
	}
	return later
}

// parkedForGood says, when the drain ends with nothing pending, that a
// parking consumer still holds events ahead of their version (S20): the
// broker is done with them (they were ACKed), no delivery is coming that
// would apply them, and only the consumer's table shows them. Nothing
// parked, nothing said.
func (s *Sim) parkedForGood(ctx context.Context) error {
	for _, p := range s.pipes {
		var n, version, expected int64
		var id, consumer, aggregate string
		err := p.pool.QueryRow(ctx, sqlParkedWaiting).Scan(&n, &id, &consumer, &aggregate, &version, &expected)
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return fmt.Errorf("parked events: %w", err)
		}
		s.record(Entry{Actor: "drain", Kind: KindStuck}.with(text("%d event(s) parked ahead of their version and nothing left to deliver: in %s, …%s (aggregate …%s, version %d) waits for version %d, which has not come — the drain stops: nothing more happens without you",
			n, consumer, id, aggregate, version, expected)))
	}
	return nil
}
