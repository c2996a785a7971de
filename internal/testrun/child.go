package testrun

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

// Command is exec.Command for a process a test starts. The process runs
// in a process group of its own and is killed with that whole group (a
// shell's children, a server's) when the test ends, passed or failed, or
// when timeout has passed, whichever comes first; where the system allows
// (Linux), it is also killed when the test binary dies, so a run killed by
// go test's timeout leaves nothing running. Give a timeout well inside
// the package's: a child that hangs then fails its own test, not the
// package.
func Command(t testing.TB, timeout time.Duration, name string, args ...string) *exec.Cmd {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = childAttr()
	cmd.Cancel = func() error { return killGroup(cmd) }
	// Output pipes a grandchild holds open do not keep Wait waiting.
	cmd.WaitDelay = 5 * time.Second
	t.Cleanup(func() {
		_ = killGroup(cmd)
		cancel()
	})
	return cmd
}
