package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/fault"
)

// faultErr is what a fault armed on an actor (and fired when it gets to
// the checkpoint) makes the actor's engine code see there; nil for a stall,
// which holds it instead.
func faultErr(f fault.Fault) error {
	switch f {
	case fault.Crash:
		return engine.ErrCrash
	case fault.FailCommit:
		return engine.ErrFailCommit
	case fault.DropCommit:
		return engine.ErrLoseCommitReply
	}
	return nil
}

// move lets one actor go on to its next checkpoint (or through a unit of
// work that finds nothing to do). It reports whether anything happened.
func (s *Sim) move(ctx context.Context, r *runner) (bool, error) {
	switch r.state {
	case Paused:
		p := r.parked
		r.parked, r.state = nil, Idle
		p.reply <- nil
	case Idle:
		select {
		case r.start <- struct{}{}:
		case <-ctx.Done():
			return false, ctx.Err()
		}
	default:
		return false, nil
	}
	moved, err := s.follow(ctx, r)
	if err != nil {
		return moved, err
	}
	return moved, s.settleBlocked(ctx)
}

// follow waits for the actor's next message and handles it.
func (s *Sim) follow(ctx context.Context, r *runner) (bool, error) {
	m, err := r.await(ctx)
	if errors.Is(err, errLockWait) {
		r.state = Blocked
		s.version++
		s.record(Entry{Pipeline: r.pipe.Kind, Actor: r.name, Kind: KindBlocked}.with(text("%s waits inside PostgreSQL: its statement needs a row lock another transaction holds (an uncommitted insert of the same key)", r.name)))
		return true, nil
	}
	if err != nil {
		return false, err
	}
	r.pipe.dbh.awaitClosed(ctx, r.name)
	return s.handle(ctx, r, m)
}

// handle takes an actor's message: a checkpoint reached or a unit finished.
func (s *Sim) handle(ctx context.Context, r *runner, m actorMsg) (bool, error) {
	if m.park != nil {
		return true, s.arrive(ctx, r, m.park)
	}
	r.parked = nil
	if m.res.idle && m.err == nil || errors.Is(m.err, engine.ErrBrokerDown) && r.at == "" {
		// Nothing to do now (a broker that is down has nothing to hand out):
		// not tried again until something changes.
		r.state, r.at = Idle, ""
		r.triedAt = s.version
		return false, nil
	}
	s.version++
	switch {
	case errors.Is(m.err, engine.ErrCrash):
		r.state = Crashed
		r.crashes++
		why, err := s.explainCrash(ctx, r)
		if err != nil {
			return true, err
		}
		s.record(Entry{Pipeline: r.pipe.Kind, Actor: r.name, Kind: KindCrash, Checkpoint: string(r.at)}.with(why))
	case m.err != nil:
		r.state, r.at = Idle, ""
		if m.res.summary.Key == "" {
			m.res.summary = answerErr(r.name, m.err)
		}
		s.record(Entry{Pipeline: r.pipe.Kind, Actor: r.name, Kind: KindError}.with(m.res.summary))
		// A lost COMMIT reply or a failed COMMIT may be PostgreSQL going
		// away, so only answers that need no server skip the check.
		if known := errors.Is(m.err, engine.ErrIdempotencyConflict) || errors.Is(m.err, engine.ErrBrokerDown); !known {
			// The first actor to fail says so once; if PostgreSQL is gone,
			// every actor stops here instead of failing again and again.
			if err := s.checkDown(ctx, m.err); errors.Is(err, ErrPostgresDown) {
				return true, err
			}
		}
	default:
		r.state, r.at = Idle, ""
		if m.res.summary.Key != "" {
			s.record(Entry{Pipeline: r.pipe.Kind, Actor: r.name, Kind: KindAnswer}.with(m.res.summary))
		}
	}
	return true, nil
}

// arrive records a checkpoint and fires a fault armed there.
func (s *Sim) arrive(ctx context.Context, r *runner, p *park) error {
	s.version++
	r.parked, r.state, r.at = p, Paused, p.ev.Checkpoint
	switch p.ev.Checkpoint {
	case engine.RelayClaimed:
		r.published = r.published[:0]
	case engine.RelayPublished:
		r.published = append(r.published, p.ev.MessageIDs...)
	case engine.RelayMarked:
		p.ev.MessageIDs = inOrderOf(p.ev.MessageIDs, r.published)
	}
	r.lastIDs = p.ev.MessageIDs
	s.record(s.entryFor(r, p.ev))
	f, ok := r.armed[p.ev.Checkpoint]
	if !ok {
		return nil
	}
	delete(r.armed, p.ev.Checkpoint)
	return s.fire(ctx, r, f)
}

// inOrderOf is ids in the order they come in order (those not in it last,
// as they were). A relay's mark returns the rows it marked in RETURNING's
// order, which is no order: it follows the plan PostgreSQL chose, and that
// may change with the statistics or with how often the connection ran the
// statement before. The timeline lists them as they were published.
func inOrderOf(ids, order []uuid.UUID) []uuid.UUID {
	out := make([]uuid.UUID, 0, len(ids))
	for _, id := range order {
		if slices.Contains(ids, id) && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// fire applies a fault to an actor parked at a checkpoint.
func (s *Sim) fire(ctx context.Context, r *runner, f fault.Fault) error {
	if f == fault.Stall {
		r.state = Stalled
		s.record(Entry{Pipeline: r.pipe.Kind, Actor: r.name, Kind: KindFault, Checkpoint: string(r.at)}.with(text("%s stalls at %s (a long GC pause, a frozen VM): it holds what it holds until resumed", r.name, r.at)))
		return nil
	}
	p := r.parked
	r.parked = nil
	p.reply <- faultErr(f)
	_, err := s.follow(ctx, r)
	return err
}

// settleBlocked follows actors that were waiting on a lock and no longer
// are: their statement went on, so they will report. Which ones is read
// from PostgreSQL (not a timer) once its backends are still, one actor at a
// time in a fixed order, which keeps the order deterministic: a lock
// released by the actor that just moved is already granted to its waiter
// (PostgreSQL grants it before the releasing COMMIT returns), and a waiter
// let go runs to the end of its statement, where it may wait again, before
// the next is judged.
func (s *Sim) settleBlocked(ctx context.Context) error {
	for again := true; again; {
		again = false
		for _, p := range s.pipes {
			if !slices.ContainsFunc(p.runners, func(r *runner) bool { return r.state == Blocked }) {
				continue
			}
			st, err := p.stillState(ctx)
			if err != nil {
				return err
			}
			for _, r := range p.runners {
				if r.state != Blocked || st.waits[r.name] {
					continue
				}
				r.state = Idle
				if _, err := s.follow(ctx, r); err != nil {
					return err
				}
				again = true
				break
			}
			if again {
				break
			}
		}
	}
	return nil
}

// candidates are the actors the scheduler may move now, in a fixed order.
func (s *Sim) candidates() []*runner {
	var out []*runner
	for _, p := range s.pipes {
		for _, r := range p.runners {
			if r.runnable(s.version) {
				out = append(out, r)
			}
		}
	}
	return out
}

// stepAny moves one actor of the scheduler's (seeded) choice; false when no
// actor can move.
func (s *Sim) stepAny(ctx context.Context) (bool, error) {
	for {
		c := s.candidates()
		if len(c) == 0 {
			return false, nil
		}
		r := c[s.rng.IntN(len(c))]
		moved, err := s.move(ctx, r)
		if moved && s.moves != nil {
			s.moves[r.pipe.Kind+"/"+r.name]++
		}
		if err != nil || moved {
			return moved, err
		}
	}
}

// maxSteps bounds a run so a scene that cannot settle fails instead of
// spinning (a variable so a test can reach it quickly).
var maxSteps = 20000

// runQuiet moves actors until none can move without the clock advancing.
func (s *Sim) runQuiet(ctx context.Context) error {
	s.moves = map[string]int{}
	defer func() { s.moves = nil }()
	for i := 0; i < maxSteps; i++ {
		moved, err := s.stepAny(ctx)
		if err != nil || !moved {
			return err
		}
	}
	return fmt.Errorf("still moving after %d steps: %s", maxSteps, s.busiest())
}

// busiest names the actors that moved most in a run that would not settle,
// and what the last of them did: what keeps going round.
func (s *Sim) busiest() string {
	names := make([]string, 0, len(s.moves))
	for n := range s.moves {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(s.moves[b]-s.moves[a], strings.Compare(a, b)) })
	parts := make([]string, 0, 3)
	for _, n := range names[:min(3, len(names))] {
		parts = append(parts, fmt.Sprintf("%s moved %d times", n, s.moves[n]))
	}
	if tl := s.Timeline(max(0, len(s.timeline)-1)); len(tl) == 1 {
		parts = append(parts, "the last step: "+tl[0].Explain)
	}
	return strings.Join(parts, "; ")
}

// stepActor moves one named actor once; nothing to do is not an error.
func (s *Sim) stepActor(ctx context.Context, r *runner) (bool, error) {
	switch r.state {
	case Crashed:
		return false, scriptf("%s has crashed: restart it first", r.name)
	case Stalled:
		return false, scriptf("%s is stalled: resume it first", r.name)
	case Blocked:
		return false, scriptf("%s is blocked on a lock: move the actor that holds it", r.name)
	}
	r.triedAt = ^uint64(0)
	return s.move(ctx, r)
}
