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
