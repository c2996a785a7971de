//go:build windows

package testrun

import (
	"os/exec"
	"syscall"
)

func childAttr() *syscall.SysProcAttr { return nil }

// killGroup kills the process alone: Windows has no process groups to kill.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
