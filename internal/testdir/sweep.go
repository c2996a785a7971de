package testdir

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A test binary that is killed (a timeout's panic, a SIGKILL, a machine
// that ran out of time) leaves its data directories behind, on a RAM file
// system at that, and maybe a server running in them. Each directory Make
// makes names its run in its name, and each run holds a lock for as
// long as it lives (outboxlab-testrun-PID.lock under the root): the first
// Make of a run under a root sweeps the directories whose run holds no
// lock any more, stopping any server left in them. A directory of a run
// still alive is never touched, however old.

// ownerRE reads the making run's pid from a name Make gave: the pattern,
// then pPID-, then a random number.
var ownerRE = regexp.MustCompile(`-p([0-9]+)-[0-9]+$`)

// ownerless is how old a test directory whose name names no run (made by
// an older build) must be to be swept.
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
	lock, err := holdRunLock(root)
	if err != nil {
		runs[root] = nil // no flock here: nothing to claim, nothing swept
		return
	}
	runs[root] = lock
	Sweep(root)
}

// runLock is the lock run pid holds under root while it lives.
func runLock(root string, pid int) string {
	return filepath.Join(root, fmt.Sprintf("outboxlab-testrun-%d.lock", pid))
}

// holdRunLock takes this run's lock under root, shared (a sweeper takes it
// exclusive to see a run gone). A sweeper removes a dead run's lock file
// while holding it: a lock taken on a file just removed is taken again on
// the new one.
func holdRunLock(root string) (*os.File, error) {
	path := runLock(root, os.Getpid())
	for {
		lock, err := openLock(path)
		if err != nil {
			return nil, err
		}
		if err := lockShared(lock); err != nil {
			lock.Close()
			return nil, err
		}
		held, err1 := lock.Stat()
		named, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, named) {
			return lock, nil
		}
		lock.Close()
	}
}

// Sweep removes the test directories under root that no live run holds,
// after stopping any PostgreSQL left running in them, and the lock files
// of runs gone; it returns the directories removed.
func Sweep(root string) []string {
	dirs, _ := filepath.Glob(filepath.Join(root, "outboxlab-*"))
	byRun := map[int][]string{}
	for _, dir := range dirs {
		base := filepath.Base(dir)
		if pid, ok := lockPid(base); ok {
			byRun[pid] = append(byRun[pid], "") // a run with no directory left still has its lock swept
			continue
		}
		pid, ok := owner(dir)
		if ok {
			byRun[pid] = append(byRun[pid], dir)
			continue
		}
		// Seeds have no owner; only a test directory an older build made
		// is swept without one.
		if !strings.HasPrefix(base, "outboxlab-test-") && !strings.HasPrefix(base, "outboxlab-pgtest-") {
			continue
		}
		if st, err := os.Stat(dir); err == nil && st.IsDir() && time.Since(st.ModTime()) > ownerless {
			byRun[0] = append(byRun[0], dir)
		}
	}
	var swept []string
	for pid, dirs := range byRun {
		if pid == os.Getpid() {
			continue
		}
		var release func()
		if pid != 0 {
			var gone bool
			if release, gone = runGone(root, pid); !gone {
				continue
			}
		}
		for _, dir := range dirs {
			if dir == "" {
				continue
			}
			stopServersIn(dir)
			if os.RemoveAll(dir) == nil {
				swept = append(swept, dir)
			}
		}
		if release != nil {
			_ = os.Remove(runLock(root, pid))
			release()
		}
	}
	return swept
}

// lockPid reads the pid from a run lock's file name.
func lockPid(base string) (int, bool) {
	rest, ok := strings.CutPrefix(base, "outboxlab-testrun-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSuffix(rest, ".lock"))
	return pid, err == nil && pid > 0
}

// owner is the pid of the run that made dir, if its name says.
func owner(dir string) (int, bool) {
	m := ownerRE.FindStringSubmatch(filepath.Base(dir))
	if m == nil {
		return 0, false
	}
	pid, err := strconv.Atoi(m[1])
	return pid, err == nil && pid > 0
}

// runGone says whether run pid holds its lock under root no more: it
// ended, or was killed. When it is gone the lock is held, exclusive, until
// release. A run that never took one (no flock) counts as alive.
func runGone(root string, pid int) (release func(), gone bool) {
	lock, err := openLock(runLock(root, pid))
	if err != nil {
		return nil, false
	}
	if tryExclusive(lock) != nil {
		lock.Close()
		return nil, false
	}
	return func() { lock.Close() }, true
}
