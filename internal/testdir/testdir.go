package testdir

import (
	"fmt"
	"os"
)

// EnvRoot names the directory test clusters go in, overriding the choice.
const EnvRoot = "OUTBOXLAB_TEST_TMPDIR"

// minFree is the room a RAM file system must have to be chosen: the
// parallel tests of one package hold a few clusters of 50–100 MB each, and
// a shared server's WAL grows to max_wal_size (1 GB) between checkpoints.
const minFree = 4 << 30

// Root is where test data directories are made: $OUTBOXLAB_TEST_TMPDIR
// when set; else a RAM file system with room (Linux: /dev/shm); else
// os.TempDir().
func Root() string {
	if d := os.Getenv(EnvRoot); d != "" {
		return d
	}
	if d := ramDir(minFree); d != "" {
		return d
	}
	return os.TempDir()
}

// Make makes a new directory under Root (pattern as os.MkdirTemp takes it)
// that every account can pass through: as root, outboxlab runs the server
// as another account, which must reach the data directory made inside.
//
// The directory's name says which run made it (pPID): a later run removes it, and
// stops a server left in it, once this run has ended without doing so
// (Sweep).
func Make(pattern string) (string, error) {
	root := Root()
	claimRoot(root)
	dir, err := os.MkdirTemp(root, fmt.Sprintf("%sp%d-", pattern, os.Getpid()))
	if err != nil {
		return "", fmt.Errorf("test directory: %w (set %s to a writable directory)", err, EnvRoot)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("test directory: %w", err)
	}
	return dir, nil
}
