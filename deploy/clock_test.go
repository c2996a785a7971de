package deploy

import (
	"sync"
	"testing"
	"time"
)

// testClock is the wall clock plus a skew the test moves: actors stamp
// and lease by it as by the system clock, and a wait on it (a supervisor's
// restart, a stall's end) ends when the test moves the clock past it, at
// the latest when the wall does. Each wait begun says so on waits, so a
// test moves the clock once the wait is there instead of sleeping.
type testClock struct {
	mu    sync.Mutex
	skew  time.Duration
	moved chan struct{} // closed and replaced by each Advance
	waits chan time.Duration
}

func newTestClock() *testClock {
	return &testClock{moved: make(chan struct{}), waits: make(chan time.Duration, 64)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().UTC().Truncate(time.Microsecond).Add(c.skew)
}

func (c *testClock) After(d time.Duration) <-chan time.Time {
	at := c.Now().Add(d)
	fired := make(chan time.Time, 1)
	go func() {
		for {
			c.mu.Lock()
			moved := c.moved
			c.mu.Unlock()
			now := c.Now()
			if !now.Before(at) {
				fired <- now
				return
			}
			select {
			case <-time.After(at.Sub(now)):
			case <-moved:
			}
		}
	}()
	select {
	case c.waits <- d:
	default: // nobody reads them: the wait goes on by the wall
	}
	return fired
}

// Advance moves the clock d forward.
func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.skew += d
	close(c.moved)
	c.moved = make(chan struct{})
	c.mu.Unlock()
}

// advanceWaited waits (up to 10 s) for a wait of d to begin on the clock,
// then moves the clock past it.
func (c *testClock) advanceWaited(t *testing.T, d time.Duration) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case w := <-c.waits:
			if w == d {
				c.Advance(d)
				return
			}
		case <-deadline:
			t.Fatalf("no wait of %s began on the clock in 10s", d)
		}
	}
}

// A wait on the test clock ends when the clock is moved past it, long
// before the wall gets there; an unmoved one ends by the wall.
func TestAfterEndsWhenTheClockMoves(t *testing.T) {
	t.Parallel()
	c := newTestClock()
	start := time.Now()
	hour := after(c, time.Hour)
	c.advanceWaited(t, time.Hour)
	select {
	case <-hour:
	case <-time.After(10 * time.Second):
		t.Fatal("a wait of an hour did not end when the clock moved an hour")
	}
	<-after(c, 20*time.Millisecond)
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("took %s", took)
	}
}
