package testdir

import (
	"fmt"
	"hash/fnv"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
)

// A Seed is a data directory made once and copied for many tests: a
// stopped PostgreSQL cluster that a warm boot takes in a fraction of a cold
// boot's CPU (pgtest says how much). It is kept under Root between runs
// (outboxlab-testcluster-NAME, with NAME.lock beside it), made by the first
// test binary that finds none, and copied under a shared lock, so test
// binaries running at once make it once. Remove it at will: the next run
// makes it again.
type Seed struct {
	// Name says what the seed holds and what made it (SeedName).
	Name string
	// Make makes the data directory data, which does not exist yet, and
	// leaves it stopped.
	Make func(data string) error
	// Check, when set, says whether a seed made earlier (by another run,
	// another build) is still one the binaries in use boot; a seed it
	// refuses is made again before it is copied.
	Check func(data string) error
}

// seedFormat is bumped when what a seed holds changes in a way its name
// does not see.
const seedFormat = "2"

// SeedName names a seed of kind made with settings by a build whose
// relevant parts (the migrations' digest, the binaries chosen) are parts: a
// warm boot keeps what initdb and the first boot wrote, so a change to any of
// them is another seed.
func SeedName(kind string, settings map[string]string, parts ...string) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "format %s\n", seedFormat)
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		fmt.Fprintf(h, "setting %q=%q\n", k, settings[k])
	}
	for _, p := range parts {
		fmt.Fprintf(h, "part %q\n", p)
	}
	return fmt.Sprintf("%s-%08x", kind, h.Sum32())
}

// Dir is where the seed is kept, and its lock file.
func (sd Seed) Dir() (dir, lock string) {
	dir = filepath.Join(Root(), "outboxlab-testcluster-"+sd.Name)
	return dir, dir + ".lock"
}

// CopyTo copies the seed's data directory to data (which does not exist
// yet), making the seed first if there is none, or again if remake (the
// last copy did not boot). It reports whether data now holds a copy: where
// none can be made (no cp, no flock, Make failed) the caller goes without.
func (sd Seed) CopyTo(data string, remake bool) bool {
	dir, lockPath := sd.Dir()
	lock, err := openLock(lockPath)
	if err != nil {
		return false
	}
	defer lock.Close()
	ready := filepath.Join(dir, "ready")
	if !remake {
		if lockShared(lock) != nil {
			return false
		}
		if sd.usable(dir, ready) == nil {
			return cpA(filepath.Join(dir, "data"), data) == nil
		}
		_ = unlock(lock)
	}
	if lockExclusive(lock) != nil {
		return false
	}
	if err := sd.usable(dir, ready); err != nil || remake {
		if err := sd.make(dir); err != nil {
			fmt.Fprintf(os.Stderr, "testdir: no seed %s, booting cold: %v (remove %s to have it made anew)\n", sd.Name, err, dir)
			return false
		}
	}
	return cpA(filepath.Join(dir, "data"), data) == nil
}

// usable says why the seed in dir cannot be copied as it is: not made (or
// not finished), or refused by Check.
func (sd Seed) usable(dir, ready string) error {
	if _, err := os.Stat(ready); err != nil {
		return err
	}
	if sd.Check != nil {
		if err := sd.Check(filepath.Join(dir, "data")); err != nil {
			return fmt.Errorf("seed %s: %w", dir, err)
		}
	}
	return nil
}

// make makes the seed in dir afresh and marks it ready.
func (sd Seed) make(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	// Mkdir's mode passes through the umask; the server's account must pass.
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	data := filepath.Join(dir, "data")
	if err := sd.Make(data); err != nil {
		return err
	}
	// Each copy's log starts with its own boot, and each copy finds a port
	// of its own: copies that all tried the seed's last port first would
	// collide on it.
	if err := os.Truncate(filepath.Join(data, "postgres.log"), 0); err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := os.Remove(filepath.Join(data, "outboxlab.port")); err != nil && !os.IsNotExist(err) {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644)
}

// cpA copies a cluster with cp -a: owners (as root the cluster is the
// server account's), modes and times kept.
func cpA(from, to string) error {
	if out, err := exec.Command("cp", "-a", from, to).CombinedOutput(); err != nil {
		_ = os.RemoveAll(to)
		return fmt.Errorf("cp -a %s %s: %v: %s", from, to, err, out)
	}
	return nil
}
