package testrun

import (
	"testing"
	"time"
)

// Eventually waits until cond holds, asking every 20 ms, and fails the
// test if it does not within d: "what" says what was awaited, for the
// failure. It is the one wait a test writes instead of a sleep (a fixed
// wait is too short on a loaded machine and too long on a quiet one) or a
// deadline loop of its own.
func Eventually(tb testing.TB, d time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("%s: not within %s", what, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Awaited is Eventually for a value read afresh at each ask: it returns
// the value that held, and when the wait fails the failure shows the
// last one read (what a deadline loop's own message printed).
func Awaited[T any](tb testing.TB, d time.Duration, what string, read func() T, holds func(T) bool) T {
	tb.Helper()
	var last T
	held := false
	defer func() {
		if !held {
			tb.Logf("%s: the last read: %+v", what, last)
		}
	}()
	Eventually(tb, d, what, func() bool { last = read(); return holds(last) })
	held = true
	return last
}
