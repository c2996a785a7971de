package sim

import (
	"context"
	"time"
)

// Elapse is live mode's clock (`outboxlab serve --http`): wall time passed,
// the virtual clock follows it with no timeline entry for each tick, and
// every actor runs until nothing moves — what a deployment does on its own,
// with nobody stepping it.
func (s *Sim) Elapse(ctx context.Context, d time.Duration) error {
	s.op.Lock()
	defer s.op.Unlock()
	defer s.notify()
	if err := s.downErr(ctx); err != nil {
		return err
	}
	s.clock.Advance(d)
	s.version++
	return s.checkDown(ctx, s.runQuiet(ctx))
}
