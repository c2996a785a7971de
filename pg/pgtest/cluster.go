package pgtest

import (
	"context"
	"fmt"
	"os"
	"sync"
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
// The cluster copied is a testdir.Seed, made once by the first test binary
// that finds none: one for each set of migrations (pg.SchemaDigest),
// PostgreSQL binaries in use (the installation pg.Boot resolves, by where
// it is and its version, so a new cache or a --pg-bin is another seed) and
// settings. A seed whose cluster another major version made is made again
// before it is copied; a copy that still fails to boot has it made again,
// once, and the failure names the seed. Where no copy can be made (no cp,
// no flock) a test server boots cold, as before.
//
// pg's own tests of the first boot boot cold: that is their subject. A
// warm boot on a cluster an older build made is what a user's data
// directory gets after every upgrade, so a copy made before the last change
// to pg's boot code is still a server tests may rely on.

// binaries are those the test servers boot with: what pg.Boot resolves
// ($OUTBOXLAB_PG_BIN, else the cache, else the machine's).
var binaries = sync.OnceValues(func() (pg.Binaries, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return pg.Resolve(ctx, pg.Options{})
})

// seedOf is the seed of kind made with settings by the binaries in use (a
// warm boot keeps the settings written at initdb, so each set of settings
// is a seed of its own): the test servers' (testSettings and the
// superuser's cheaper verifier), or what a first run leaves with the
// settings a test boots its own server with.
func seedOf(kind string, settings map[string]string) testdir.Seed {
	bins, err := binaries()
	if err != nil {
		// No seed can name binaries not found; Make's boot says why.
		bins = pg.Binaries{}
	}
	return seedWith(kind, settings, bins)
}

// seedWith is seedOf for the binaries bins (zero: whatever Boot finds).
func seedWith(kind string, settings map[string]string, bins pg.Binaries) testdir.Seed {
	id := "unresolved"
	if bins.Dir != "" {
		id = bins.Identity()
	}
	sd := testdir.Seed{Name: testdir.SeedName(kind, settings, pg.SchemaDigest(), id)}
	sd.Make = func(data string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		srv, err := pg.Boot(ctx, pg.Options{DataDir: data, Settings: settings, BinDir: bins.Dir})
		if err != nil {
			return err
		}
		if kind == serverKind {
			err = cheapVerifier(ctx, srv)
		}
		if stopErr := srv.Stop(); err == nil {
			err = stopErr
		}
		return err
	}
	if bins.Major != 0 {
		sd.Check = bins.Runs
	}
	return sd
}

const serverKind = "server"

var serverSeed = sync.OnceValue(func() testdir.Seed { return seedOf(serverKind, testSettings) })

// firstRun is the seed of a first run with these settings.
func firstRun(settings map[string]string) testdir.Seed { return seedOf("firstrun", settings) }

// bootSeeded boots a test server on dataDir (which does not exist yet) from
// a copy of the server seed. ok is false when no copy could be made: the
// caller boots cold.
func bootSeeded(ctx context.Context, dataDir string) (srv *pg.Server, ok bool, err error) {
	seed := serverSeed()
	for attempt := 0; attempt < 2; attempt++ {
		if !seed.CopyTo(dataDir, attempt > 0) {
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
	dir, _ := seed.Dir()
	return nil, true, fmt.Errorf("boot a copy of the test seed %s, made again once: %w (remove %s to have it made anew)", seed.Name, err, dir)
}
