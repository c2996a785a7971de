//go:build unix

package pg

import (
	"os"
	"syscall"
)

// oNoFollow makes opening the lock file fail on a symlink.
const oNoFollow = syscall.O_NOFOLLOW

// tryLock takes an exclusive flock on f without waiting; the kernel drops it
// when the process dies, however it dies.
func tryLock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// tryShared takes a shared flock on f without waiting: many holders at
// once, and none while an exclusive one is held.
func tryShared(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
}
