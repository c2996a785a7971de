package cli

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The simulator and a lesson started with no terminal at all (a cron job,
// a CI step, `ssh host outboxlab` with no pty) say so and exit 2 before
// anything boots, rather than bubbletea's "could not open TTY" and exit 1
// after PostgreSQL booted. The binary runs in a session of its own, so it
// has no controlling terminal to open either, whatever runs the test.
func TestNoTerminalIsBadInput(t *testing.T) {
	bin := binary(t)
	for _, args := range [][]string{nil, {"--lesson", "dual-write"}} {
		data := filepath.Join(t.TempDir(), "never")
		cmd := exec.Command(bin, append(args, "--data-dir", data)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		var errb strings.Builder
		cmd.Stderr = &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != ExitUsage {
			t.Fatalf("%v: %v, want exit 2; stderr:\n%s", args, err, errb.String())
		}
		if want := "no terminal to read keys from"; !strings.Contains(errb.String(), want) || strings.Contains(errb.String(), "bubbletea") {
			t.Errorf("%v: stderr %q, want %q and not bubbletea's words", args, errb.String(), want)
		}
		if _, err := os.Stat(data); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%v: the data directory was made (%v): nothing should boot", args, err)
		}
	}
}
