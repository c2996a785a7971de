//go:build unix && !linux

package testrun

import "syscall"

// childAttr: a group of its own (no death signal on these systems).
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
