package deploy

import (
	"time"

	"github.com/outboxlab/outboxlab/engine"
)

// waitingClock is a Clock that also waits by its own time. A deployment's
// supervisor restart and an actor's stall end after the clock's After when
// it has one (a test's clock then moves them when the test moves it);
// engine.SystemClock has none, and they wait on the wall, as they always did.
type waitingClock interface {
	engine.Clock
	After(d time.Duration) <-chan time.Time
}

// after receives once d has passed on clock.
func after(clock engine.Clock, d time.Duration) <-chan time.Time {
	if w, ok := clock.(waitingClock); ok {
		return w.After(d)
	}
	return time.After(d)
}
