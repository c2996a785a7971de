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
		time.Sleep(30 * time.Millisecond) // deliberate: a condition that holds only a moment later
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

// Awaited returns the value that held; a wait that fails shows the last
// value read.
func TestAwaited(t *testing.T) {
	var n atomic.Int32
	if got := Awaited(t, 5*time.Second, "three", func() int32 { return n.Add(1) }, func(v int32) bool { return v == 3 }); got != 3 {
		t.Errorf("returned %d, want the 3 that held", got)
	}
	ft := &fatalRecorder{T: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Awaited(ft, 50*time.Millisecond, "never", func() string { return "the last" }, func(string) bool { return false })
	}()
	<-done
	if ft.msg != "never: not within 50ms" || ft.logged != "never: the last read: the last" {
		t.Errorf("a value that never holds: %q, logged %q", ft.msg, ft.logged)
	}
}

// fatalRecorder records a Fatalf and ends its goroutine as testing does.
type fatalRecorder struct {
	*testing.T
	msg, logged string
}

func (f *fatalRecorder) Logf(format string, args ...any) { f.logged = fmt.Sprintf(format, args...) }

func (f *fatalRecorder) Helper() {}

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
