package pgtest

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/outboxlab/outboxlab/internal/testdir"
	"github.com/outboxlab/outboxlab/pg"
)

// A test server starts from a copy of a stopped cluster, not from initdb.
// A cold boot (initdb, the template and application databases, every
// migration) costs about 1.7 s of CPU and 1.6 s of wall on the project's
// 2-core machine; a copy and a warm boot about 0.6 s. Every package's test
// binary boots one shared server, and some boot quiet ones, so the suite
// booted about 35 clusters cold.
//
// The cluster copied is kept beside the test data directories (testdir's
// Root), made once by the first test binary that finds none: one for each
// set of migrations (pg.SchemaDigest) and PostgreSQL binaries chosen
// ($OUTBOXLAB_PG_BIN), the others being other clusters. It stays between
// runs; remove it (outboxlab-testcluster-*) and the next run makes it again.
// A copy that fails to boot (binaries of another major version, say) has
// the cluster made again, once. Where no copy can be made (no cp, no flock)
// a test server boots cold, as before.
//
// pg's own tests boot cold on purpose: a cold boot is one of their
// subjects. A warm boot on a cluster an older build made is what a user's
// data directory gets after every upgrade, so a copy made before the last
// change to pg's boot code is still a server tests may rely on.

// clusterFormat is bumped when what a seed cluster holds changes in a way
// the key does not see.
const clusterFormat = 1

// A seed is one kind of cluster to copy: a test server's (testSettings, and
// the superuser's cheaper verifier), or what a first run leaves with the
// settings a test boots its own server with (none, as a user's).
type seed struct {
	name     string
	settings map[string]string
}

// A warm boot keeps the settings written at initdb, so each seed is one
// set of settings: its name says which.
var serverSeed = seedOf("server", testSettings)

// firstRun is the seed of a first run with these settings.
func firstRun(settings map[string]string) seed { return seedOf("firstrun", settings) }

func seedOf(kind string, settings map[string]string) seed {
	keys := slices.Sorted(maps.Keys(settings))
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s\n", k, settings[k])
	}
	return seed{fmt.Sprintf("%s%x", kind, fnv(b.String())), settings}
}

// dir is where the seed is kept, and its lock file.
func (sd seed) dir() (dir, lock string) {
	key := fmt.Sprintf("%d-%s-%.16s-%x", clusterFormat, sd.name, pg.SchemaDigest(), fnv(os.Getenv(pg.EnvBinDir)))
	dir = filepath.Join(testdir.Root(), "outboxlab-testcluster-"+key)
	return dir, dir + ".lock"
}

// bootSeeded boots a test server on dataDir (which does not exist yet) from
// a copy of the server seed. ok is false when no copy could be made: the
// caller boots cold.
func bootSeeded(ctx context.Context, dataDir string) (srv *pg.Server, ok bool, err error) {
	for attempt := 0; attempt < 2; attempt++ {
		if !serverSeed.copyTo(dataDir, attempt > 0) {
			return nil, false, nil
		}
		srv, err = pg.Boot(ctx, pg.Options{DataDir: dataDir, Settings: testSettings})
		if err == nil {
			return srv, true, nil
		}
		if ctx.Err() != nil {
			return nil, true, err
		}
		_ = os.RemoveAll(dataDir)
	}
	return nil, true, err
}

// copyTo copies the seed to dataDir, making it first if there is none (or,
// remake, if the last copy did not boot). It reports whether dataDir now
// holds a copy.
func (sd seed) copyTo(dataDir string, remake bool) bool {
	dir, lockPath := sd.dir()
	lock, err := openLock(lockPath)
	if err != nil {
		return false
	}
	defer lock.Close()
	ready := filepath.Join(dir, "ready")
	if !remake {
		// Many test binaries copy at once; one makes the seed alone.
		if lockShared(lock) != nil {
			return false
		}
		if _, err := os.Stat(ready); err == nil {
			return cpA(filepath.Join(dir, "data"), dataDir) == nil
		}
		_ = unlock(lock)
	}
	if lockExclusive(lock) != nil {
		return false
	}
	if _, err := os.Stat(ready); err != nil || remake {
		if err := sd.make(dir); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: no %s seed cluster, booting cold: %v\n", sd.name, err)
			return false
		}
	}
	return cpA(filepath.Join(dir, "data"), dataDir) == nil
}

// make boots a cluster cold in dir/data as a test server (or a user's first
// run) would, stops it, and marks it ready.
func (sd seed) make(dir string) error {
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
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	data := filepath.Join(dir, "data")
	srv, err := pg.Boot(ctx, pg.Options{DataDir: data, Settings: sd.settings})
	if err != nil {
		return err
	}
	if sd.name == serverSeed.name { // the test servers' cheaper verifier
		err = cheapVerifier(ctx, srv)
	}
	if stopErr := srv.Stop(); err == nil {
		err = stopErr
	}
	if err != nil {
		return err
	}
	// Each copy's log starts with its own boot.
	if err := os.Truncate(filepath.Join(data, "postgres.log"), 0); err != nil && !os.IsNotExist(err) {
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

// fnv is FNV-1a of s, to key on a path without putting it in a name.
func fnv(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return h
}
