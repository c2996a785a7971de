package pg

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

const ownerFile = "outboxlab.lock"

// ErrDataDirInUse means another running outboxlab owns the data directory.
var ErrDataDirInUse = errors.New("data directory in use")

// lockOwner takes the data directory for this process: an exclusive lock on
// a file inside it (flock on Unix, LockFileEx on Windows), held until Stop. The kernel releases it when the process
// dies, even by SIGKILL, so a server found running on a data directory whose
// lock is free was left by a killed outboxlab (an orphan to recover), while a
// held lock means a live outboxlab that must not be disturbed.
func lockOwner(dataDir string) (*os.File, error) {
	path := filepath.Join(dataDir, ownerFile)
	// oNoFollow: the lock is truncated and written, so a symlink planted
	// under its name must not lead that write to some other file.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|oNoFollow, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := tryLock(f); err != nil {
		raw, _ := os.ReadFile(path)
		f.Close()
		owner := strings.TrimSpace(string(raw))
		if owner == "" {
			owner = "unknown"
		}
		return nil, said(ErrDataDirInUse, "data directory in use: %s is used by another outboxlab (pid %s): close it, or give this one its own --data-dir", dataDir, owner)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}
