package vclock

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// A ticking clock moves a tick at every read and none at a peek; a reset
// puts it back at its start.
func TestATickingClockMovesAtEveryRead(t *testing.T) {
	c := Ticking(t0, time.Microsecond)
	a, b := c.Now(), c.Now()
	if a != t0.Add(time.Microsecond) || b != t0.Add(2*time.Microsecond) || c.Peek() != b {
		t.Errorf("reads %v, %v, peek %v: want a microsecond apart from %v", a, b, c.Peek(), t0)
	}
	c.Advance(time.Hour)
	if got := c.Peek(); got != b.Add(time.Hour) {
		t.Errorf("after an hour: %v, want %v", got, b.Add(time.Hour))
	}
	c.Reset()
	if got := c.Peek(); got != t0 {
		t.Errorf("after a reset: %v, want %v", got, t0)
	}
}

// A still clock reads the same until moved; it moves only forward.
func TestAStillClockMovesOnlyWhenMovedForward(t *testing.T) {
	c := At(t0)
	if a, b := c.Now(), c.Now(); a != t0 || b != t0 {
		t.Errorf("reads %v, %v: want %v twice", a, b, t0)
	}
	c.Advance(-time.Minute)
	c.AdvanceTo(t0.Add(-time.Minute))
	if got := c.Now(); got != t0 {
		t.Errorf("moved back: %v, want it still at %v", got, t0)
	}
	c.AdvanceTo(t0.Add(time.Minute))
	c.Advance(time.Second)
	if got := c.Now(); got != t0.Add(time.Minute+time.Second) {
		t.Errorf("moved to a minute, then a second: %v", got)
	}
}

// A wait on a virtual clock ends when the clock is moved past it, and
// not before, however long the wall waits.
func TestAWaitOnAVirtualClockEndsWhenMoved(t *testing.T) {
	c := At(t0)
	hour := c.After(time.Hour)
	if w := <-c.Waits(); w != time.Hour {
		t.Fatalf("a wait of %v said it was %v", time.Hour, w)
	}
	c.Advance(59 * time.Minute)
	select {
	case at := <-hour:
		t.Fatalf("a wait of an hour ended at %v, 59 minutes in", at)
	case <-time.After(50 * time.Millisecond): // the wait is given time to end wrongly
	}
	c.Advance(time.Minute)
	select {
	case at := <-hour:
		if at != t0.Add(time.Hour) {
			t.Errorf("ended at %v, want %v", at, t0.Add(time.Hour))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a wait of an hour did not end when the clock moved an hour")
	}
}

// The wall clock reads the wall plus its skew; a wait on it ends when it
// is moved past it, else when the wall gets there.
func TestAWaitOnTheWallEndsWhenMovedOrByTheWall(t *testing.T) {
	c := OnWall()
	before := time.Now().UTC()
	c.Advance(time.Hour)
	now := c.Now()
	if now.Before(before.Add(time.Hour).Truncate(time.Microsecond)) || now.After(time.Now().UTC().Add(time.Hour)) {
		t.Errorf("an hour ahead of the wall: %v, the wall %v", now, before)
	}
	start := time.Now()
	hour := c.After(time.Hour)
	c.Advance(time.Hour)
	select {
	case <-hour:
	case <-time.After(10 * time.Second):
		t.Fatal("a wait of an hour did not end when the clock moved an hour")
	}
	<-c.After(20 * time.Millisecond)
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("took %s", took)
	}
}
