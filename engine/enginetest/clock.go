package enginetest

import (
	"sync"
	"time"
)

// Start is where a test clock starts: a fixed moment, so timelines and
// stored times are the same on every run.
var Start = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

// Clock is a virtual clock (an engine.Clock): time moves only when a test
// moves it. Safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock at Start.
func NewClock() *Clock { return &Clock{now: Start} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock d forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}
