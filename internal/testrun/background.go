package testrun

import (
	"regexp"
	"sync"
	"testing"
)

// BackgroundErrors returns the error hook (an OnError) a test gives what it
// runs in the background (a deployment's actors, a collector's reads): an
// error it hears fails the test at its end, unless it matches one of allow,
// the errors the test causes on purpose (a fault, a server taken away),
// which are logged. Call it before starting what reports to it, so its
// check runs after that has stopped (cleanups run last first).
func BackgroundErrors(tb testing.TB, allow ...string) func(error) {
	tb.Helper()
	rx := make([]*regexp.Regexp, len(allow))
	for i, a := range allow {
		rx[i] = regexp.MustCompile(a)
	}
	var mu sync.Mutex
	var heard []error
	tb.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
	next:
		for _, err := range heard {
			for _, r := range rx {
				if r.MatchString(err.Error()) {
					tb.Logf("in the background, as the test meant: %v", err)
					continue next
				}
			}
			tb.Errorf("in the background: %v", err)
		}
	})
	return func(err error) {
		mu.Lock()
		defer mu.Unlock()
		heard = append(heard, err)
	}
}
