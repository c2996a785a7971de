package vclock

import (
	"sync"
	"time"
)

// Clock is a clock whose time moves when its owner moves it (Advance,
// AdvanceTo), and, as it was made, by a tick at every read or with the
// wall. Safe for concurrent use.
type Clock struct {
	mu    sync.Mutex
	wall  bool          // time runs on with the wall clock (OnWall)
	start time.Time     // a virtual clock's start, where Reset puts it back
	moved time.Duration // how far it was moved from its start (or the wall)
	tick  time.Duration // how far each Now moves it
	woken chan struct{} // closed and replaced by each move
	waits chan time.Duration
}

// At returns a clock at start that stands still until it is moved.
func At(start time.Time) *Clock { return Ticking(start, 0) }

// Ticking returns a clock at start that moves by tick at every Now, so
// that reads keep a strict order (occurred_at, leases), as on a real
// clock.
func Ticking(start time.Time, tick time.Duration) *Clock {
	return &Clock{start: start, tick: tick, woken: make(chan struct{}), waits: make(chan time.Duration, 64)}
}

// OnWall returns the wall clock (UTC, microseconds, as engine.SystemClock)
// plus a skew that Advance moves: actors stamp and lease by it as by the
// system clock, and a wait on it ends early when the clock is moved past
// it.
func OnWall() *Clock {
	c := At(time.Time{})
	c.wall = true
	return c
}

// now is the clock's time; c.mu is held.
func (c *Clock) now() time.Time {
	if c.wall {
		return time.Now().UTC().Truncate(time.Microsecond).Add(c.moved)
	}
	return c.start.Add(c.moved)
}

// Now returns the clock's time, after moving it by its tick.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.moved += c.tick
	return c.now()
}

// Peek returns the clock's time without ticking it.
func (c *Clock) Peek() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now()
}

// Advance moves the clock forward by d (a d that is not positive leaves
// it where it is).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.move(d)
}

// AdvanceTo moves the clock to t if t is later.
func (c *Clock) AdvanceTo(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.move(t.Sub(c.now()))
}

// move moves the clock by d if d is positive, and wakes the waits on it;
// c.mu is held.
func (c *Clock) move(d time.Duration) {
	if d <= 0 {
		return
	}
	c.moved += d
	close(c.woken)
	c.woken = make(chan struct{})
}

// Reset puts the clock back at its start (a simulation's rewind), in
// place, so whoever reads it meanwhile reads it under its lock.
func (c *Clock) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.moved = 0
}

// After receives once d has passed on the clock: when the clock is moved
// past it, or, on the wall, at the latest when the wall gets there. Each
// wait begun says its length on Waits.
func (c *Clock) After(d time.Duration) <-chan time.Time {
	at := c.Peek().Add(d)
	fired := make(chan time.Time, 1)
	go func() {
		for {
			c.mu.Lock()
			now, woken := c.now(), c.woken
			c.mu.Unlock()
			if !now.Before(at) {
				fired <- now
				return
			}
			var wall <-chan time.Time
			if c.wall {
				wall = time.After(at.Sub(now))
			}
			select {
			case <-wall:
			case <-woken:
			}
		}
	}()
	select {
	case c.waits <- d:
	default: // nobody reads them: the wait goes on regardless
	}
	return fired
}

// Waits says the length of each wait begun on the clock (After), so a
// test moves the clock once the wait is there instead of sleeping. Up to
// 64 go unread; after that they are not told.
func (c *Clock) Waits() <-chan time.Duration { return c.waits }
