//go:build unix

package testrun

import (
	"os/exec"
	"syscall"
)

// killGroup kills cmd's process group, if it started.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
