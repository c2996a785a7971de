package testrun

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// Eventually returns once its condition holds, and fails the test when it
// does not in time.
func TestEventually(t *testing.T) {
	var n atomic.Int32
	go func() {
		time.Sleep(30 * time.Millisecond)
		n.Store(1)
	}()
	Eventually(t, 5*time.Second, "n set", func() bool { return n.Load() == 1 })

	ft := &fatalRecorder{T: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Eventually(ft, 50*time.Millisecond, "never", func() bool { return false })
	}()
	<-done
	if ft.msg != "never: not within 50ms" {
		t.Errorf("a condition that never holds: %q, want it to fail the test", ft.msg)
	}
}

// fatalRecorder records a Fatalf and ends its goroutine as testing does.
type fatalRecorder struct {
	*testing.T
	msg string
}

func (f *fatalRecorder) Helper() {}

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
