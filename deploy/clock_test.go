package deploy

import (
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/engine/vclock"
)

// advanceWaited waits (up to 10 s) for a wait of d to begin on the clock
// (the tests' clock is vclock.OnWall: the wall plus a skew the test
// moves), then moves the clock past it.
func advanceWaited(t *testing.T, c *vclock.Clock, d time.Duration) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case w := <-c.Waits():
			if w == d {
				c.Advance(d)
				return
			}
		case <-deadline:
			t.Fatalf("no wait of %s began on the clock in 10s", d)
		}
	}
}

// A deployment's waits go by the clock's own After when it has one: a
// wait on the tests' clock ends when the clock is moved past it, long
// before the wall gets there; an unmoved one ends by the wall.
func TestAfterEndsWhenTheClockMoves(t *testing.T) {
	t.Parallel()
	c := vclock.OnWall()
	start := time.Now()
	hour := after(c, time.Hour)
	advanceWaited(t, c, time.Hour)
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
