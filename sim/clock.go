package sim

import (
	"sync"
	"time"
)

// Epoch is where every scene's virtual clock starts, so timelines of the
// same scene and seed are identical to the microsecond.
var Epoch = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// Clock is the virtual clock the engine reads through engine.Clock: time moves
// only when the simulator advances it, so a 30 s lease or a 300 s backoff
// takes one keystroke. Each read moves it by one microsecond, so events keep
// a strict order (occurred_at, leases) as they would on a real clock.
type Clock struct {
	mu    sync.Mutex
	now   time.Time
	start time.Time // where it starts, and a reset puts it back
}

// NewClock returns a clock at Epoch.
func NewClock() *Clock { return newClockAt(Epoch) }

// newClockAt returns a clock at start (Config.Start).
func newClockAt(start time.Time) *Clock { return &Clock{now: start, start: start} }

// Now returns the virtual time (and ticks it by a microsecond).
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Microsecond)
	return c.now
}

// Peek returns the virtual time without ticking it.
func (c *Clock) Peek() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// reset puts the clock back at its start (a session's rewind), in place,
// so whoever reads it meanwhile reads it under its lock.
func (c *Clock) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.start
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.now = c.now.Add(d)
	}
}

// AdvanceTo moves the clock to t if t is later.
func (c *Clock) AdvanceTo(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.now = t
	}
}
