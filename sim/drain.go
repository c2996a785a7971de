package sim

import (
	"context"
	"fmt"
	"time"
)

// drain runs the pipelines until nothing is pending: whenever no actor can
// move, a supervisor restarts crashed actors and the clock jumps to the next
// moment something becomes due (a retry's next_attempt_at, an expired lease,
// a broker redelivery). Lost events are judged after a drain: what a drained
// system never delivered, it never will.
func (s *Sim) drain(ctx context.Context) error {
	for round := 0; round < 500; round++ {
		if err := s.runQuiet(ctx); err != nil {
			return err
		}
		restarted := false
		for _, p := range s.pipes {
			for _, r := range p.runners {
				if r.state == Crashed {
					if err := s.restart(r, "a supervisor restarts"); err != nil {
						return err
					}
					restarted = true
				}
			}
		}
		if restarted {
			continue
		}
		next, pending, err := s.nextDue(ctx)
		if err != nil {
			return err
		}
		if !pending {
			return nil
		}
		now := s.clock.Peek()
		if next.IsZero() || !next.After(now) {
			// Due now but nobody can take it (a stalled actor holds it, the
			// broker is down with nothing scheduled): nothing more will happen.
			return nil
		}
		d := next.Sub(now).Truncate(time.Millisecond) + time.Millisecond
		s.advance(d)
	}
	return fmt.Errorf("drain: not drained after 500 rounds")
}

// nextDue finds when something pending becomes due: the earliest retry or
// lease expiry in any outbox, or the earliest broker redelivery.
func (s *Sim) nextDue(ctx context.Context) (time.Time, bool, error) {
	var next time.Time
	pending := false
	earlier := func(t time.Time) {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	for _, p := range s.pipes {
		if p.Kind == "outbox" {
			var n int
			var due *time.Time
			if err := p.pool.QueryRow(ctx, sqlNextDue).Scan(&n, &due); err != nil {
				return next, false, fmt.Errorf("next due: %w", err)
			}
			if n > 0 {
				pending = true
			}
			if due != nil {
				earlier(*due)
			}
		}
		if t, ok := p.broker.NextDue(); ok {
			pending = true
			earlier(t)
		} else if p.unsettled() {
			pending = true
		}
	}
	return next, pending, nil
}

// sqlNextDue counts pending rows and finds the earliest moment one becomes
// claimable: its next_attempt_at, or its lease's end if later.
const sqlNextDue = `
SELECT count(*), min(GREATEST(next_attempt_at, COALESCE(locked_until, next_attempt_at)))
FROM outbox_messages
WHERE published_at IS NULL AND dead_lettered_at IS NULL`

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
