package badinput

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

// Bad input stays recognisable through wrapping, says its cause's message
// unchanged, and keeps the cause reachable.
func TestBadInputThroughWrapping(t *testing.T) {
	err := fmt.Errorf("boot: %w", Wrap(fmt.Errorf("--data-dir x: %w", io.EOF)))
	if !Is(err) || !errors.Is(err, io.EOF) {
		t.Errorf("%v: want bad input wrapping io.EOF", err)
	}
	if got := err.Error(); got != "boot: --data-dir x: EOF" {
		t.Errorf("message %q changed", got)
	}
	if Wrap(nil) != nil || Is(io.EOF) || Is(nil) {
		t.Error("nil or a plain error is no bad input")
	}
	if e := Errorf("--width %d: want 40 or more", 20); !Is(e) || e.Error() != "--width 20: want 40 or more" {
		t.Errorf("Errorf: %v", e)
	}
	if e := New("which scene?"); !Is(e) || e.Error() != "which scene?" {
		t.Errorf("New: %v", e)
	}
}
