//go:build windows

package pg

import (
	"os"

	"golang.org/x/sys/windows"
)

// oNoFollow is nothing on Windows: os.OpenFile has no such flag there, and
// making a symlink takes a privilege an attacker planting one would not have.
const oNoFollow = 0

// lockByte is the one byte tryLock locks, far past the pid written at the
// start of the file. Windows locks are mandatory: a locked range cannot be
// read through another handle, and the outboxlab that loses must still read
// the pid to name its owner. Locking past the end of a file is allowed.
const lockByte = 1 << 30

// tryLock takes an exclusive lock on f without waiting (LockFileEx). Windows
// releases it when the handle is closed, and so when the process dies.
func tryLock(f *os.File) error {
	ol := &windows.Overlapped{Offset: lockByte}
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
}

// tryShared takes a shared lock on f without waiting (LockFileEx without
// LOCKFILE_EXCLUSIVE_LOCK): many holders at once, none beside an exclusive.
func tryShared(f *os.File) error {
	ol := &windows.Overlapped{Offset: lockByte}
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
}
