package testdir

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A test binary that is killed (a timeout's panic, a SIGKILL, a machine
// that ran out of time) leaves its data directories behind, on a RAM file
// system at that, and maybe a server running in them. Each directory Make
// makes names its run in an owner file, and each run holds a lock for as
// long as it lives (outboxlab-testrun-PID.lock under the root): the first
// Make of a run under a root sweeps the directories whose run holds no
// lock any more, stopping any server left in them. A directory of a run
// still alive is never touched, however old.

// ownerFile, inside each directory Make makes, holds the making run's pid.
const ownerFile = ".outboxlab-test-owner"

// ownerless is how old a directory with no owner file (made by a build
// before owners were written, or being made this instant) must be to be
// swept.
const ownerless = time.Hour

var (
	runsMu sync.Mutex
	runs   = map[string]*os.File{} // root → this run's lock there, held until exit
)

// claimRoot takes this run's lock under root and, the first time, sweeps
// what dead runs left there.
func claimRoot(root string) {
	runsMu.Lock()
	defer runsMu.Unlock()
	if _, ok := runs[root]; ok {
		return
	}
	lock, err := openLock(runLock(root, os.Getpid()))
	if err != nil {
		runs[root] = nil // no flock here: nothing to claim, nothing swept
		return
	}
	if lockShared(lock) != nil {
		lock.Close()
		runs[root] = nil
		return
	}
	runs[root] = lock
	Sweep(root)
}

// runLock is the lock run pid holds under root while it lives.
func runLock(root string, pid int) string {
	return filepath.Join(root, fmt.Sprintf("outboxlab-testrun-%d.lock", pid))
}

// Sweep removes the test directories under root that no live run holds,
// after stopping any PostgreSQL left running in them, and the dead runs'
// lock files; it returns the directories removed.
func Sweep(root string) []string {
	dirs, _ := filepath.Glob(filepath.Join(root, "outboxlab-*"))
	dead := map[int]bool{}
	var swept []string
	for _, dir := range dirs {
		pid, ok := owner(dir)
		if !ok {
			// Seeds and run locks have no owner; only a test directory
			// an older build made is swept without one.
			base := filepath.Base(dir)
			if !strings.HasPrefix(base, "outboxlab-test-") && !strings.HasPrefix(base, "outboxlab-pgtest-") {
				continue
			}
			if st, err := os.Stat(dir); err != nil || !st.IsDir() || time.Since(st.ModTime()) < ownerless {
				continue
			}
		} else if pid == os.Getpid() || !runGone(root, pid) {
			continue
		} else {
			dead[pid] = true
		}
		stopServersIn(dir)
		if os.RemoveAll(dir) == nil {
			swept = append(swept, dir)
		}
	}
	for pid := range dead {
		_ = os.Remove(runLock(root, pid))
	}
	return swept
}

// owner is the pid of the run that made dir, if it says.
func owner(dir string) (int, bool) {
	b, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid, err == nil && pid > 0
}

// runGone says whether run pid holds its lock under root no more: it
// ended, or was killed. A run that never took one (no flock) counts as
// alive.
func runGone(root string, pid int) bool {
	lock, err := openLock(runLock(root, pid))
	if err != nil {
		return false
	}
	defer lock.Close()
	return tryExclusive(lock) == nil
}
