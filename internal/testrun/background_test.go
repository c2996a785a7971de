package testrun

import (
	"errors"
	"sync"
	"testing"
)

// An error heard in the background fails the test at its end; one the
// test allows is only logged.
func TestBackgroundErrorsFailTheTest(t *testing.T) {
	for _, c := range []struct {
		name  string
		allow []string
		fails bool
	}{
		{"unexpected", nil, true},
		{"allowed", []string{`relay-1: crashed`}, false},
		{"another allowed", []string{`broker down`}, true},
	} {
		ft := &failRecorder{TB: t}
		func() {
			var cleanups []func()
			ft.cleanup = func(f func()) { cleanups = append(cleanups, f) }
			onError := BackgroundErrors(ft, c.allow...)
			var wg sync.WaitGroup // heard on other goroutines, as an actor's are
			for _, e := range []string{"relay-1: crashed at a checkpoint; starting it again in 1s", "relay-1: crashed again"} {
				wg.Go(func() { onError(errors.New(e)) })
			}
			wg.Wait()
			for i := len(cleanups) - 1; i >= 0; i-- {
				cleanups[i]()
			}
		}()
		if ft.failed != c.fails {
			t.Errorf("%s: failed %v, want %v", c.name, ft.failed, c.fails)
		}
	}
}

// failRecorder records a failure instead of failing, and runs cleanups
// when told.
type failRecorder struct {
	testing.TB
	failed  bool
	cleanup func(func())
}

func (f *failRecorder) Helper()               {}
func (f *failRecorder) Cleanup(fn func())     { f.cleanup(fn) }
func (f *failRecorder) Errorf(string, ...any) { f.failed = true }
func (f *failRecorder) Logf(string, ...any)   {}
