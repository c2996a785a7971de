//go:build linux

package testrun

import "syscall"

// childAttr: a group of its own, and SIGKILL when the test binary dies.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
