//go:build unix

package testdir

import (
	"os"
	"syscall"
)

func openLock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
}

func lockShared(f *os.File) error    { return syscall.Flock(int(f.Fd()), syscall.LOCK_SH) }
func lockExclusive(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }
func unlock(f *os.File) error        { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
