//go:build unix

package pg

import (
	"errors"
	"os"
	"syscall"
)

// killGroup kills a PostgreSQL program and whatever it started: procAttr
// gave it a process group of its own, whose id is its pid.
func killGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
}

// processAlive reports whether pid is a running process. EPERM means it runs
// under another user (the postgres account, seen by a non-root outboxlab).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
