package pgtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/outboxlab/outboxlab/internal/testdir"
	"github.com/outboxlab/outboxlab/pg"
)

// seedsOfItsOwn points testdir's Root at a directory of the test's own, so
// its seed clusters are made by it and removed after it.
func seedsOfItsOwn(t *testing.T) {
	t.Helper()
	root, err := testdir.Make("outboxlab-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	t.Setenv(testdir.EnvRoot, root)
}

// Test servers boot from copies of one seed cluster: the first test server
// makes it, every one (the first too) boots warm on a copy of its own, up
// to date and apart from the others; a seed that no longer boots is made
// again.
func TestTestServersBootFromASeedCluster(t *testing.T) {
	seedsOfItsOwn(t)
	ctx := context.Background()
	seed, _ := serverSeed().Dir()

	boot := func(what string) (*pg.Server, *pgx.Conn) {
		t.Helper()
		dir, err := testdir.Make("outboxlab-test-")
		if err != nil {
			t.Fatal(err)
		}
		srv, seeded, err := bootSeeded(ctx, filepath.Join(dir, "data"))
		if err != nil || !seeded {
			t.Fatalf("%s: seeded %v, %v", what, seeded, err)
		}
		t.Cleanup(func() { _ = srv.Stop() })
		if srv.Cold {
			t.Errorf("%s booted cold: want a warm boot on a copy", what)
		}
		conn, err := pgx.Connect(ctx, srv.URL())
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		t.Cleanup(func() { conn.Close(ctx) })
		if !pg.UpToDate(ctx, conn) {
			t.Errorf("%s: the schema is not up to date", what)
		}
		if err := srv.CreateDatabase(ctx, "from_the_template"); err != nil {
			t.Errorf("%s: %v", what, err)
		}
		return srv, conn
	}

	_, first := boot("the first server")
	if _, err := os.Stat(filepath.Join(seed, "ready")); err != nil {
		t.Fatalf("no seed cluster after the first server: %v", err)
	}
	_, second := boot("the second server")
	if _, err := first.Exec(ctx, `CREATE TABLE only_in_the_first (x int)`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := second.QueryRow(ctx, `SELECT count(*) FROM pg_class WHERE relname = 'only_in_the_first'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("the second server sees the first's table (%d, %v): the copies are one cluster", n, err)
	}

	// As if the seed had been made by binaries of another major version.
	version := filepath.Join(seed, "data", "pgdata", "PG_VERSION")
	was, err := os.ReadFile(version)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(version, []byte("9\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	boot("a server after the seed broke")
	if now, err := os.ReadFile(version); err != nil || string(now) != string(was) {
		t.Errorf("the broken seed was not made again: PG_VERSION %q, %v; want %q", now, err, was)
	}
}

// A seeded data directory is what a user's first run leaves: outboxlab
// boots it warm, with none of the test servers' settings.
func TestASeededDataDirIsAFirstRunsDataDir(t *testing.T) {
	seedsOfItsOwn(t)
	ctx := context.Background()
	srv, err := pg.Boot(ctx, pg.Options{DataDir: SeededDataDir(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	if srv.Cold {
		t.Error("a seeded data directory booted cold")
	}
	conn, err := pgx.Connect(ctx, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var fsync string
	if err := conn.QueryRow(ctx, `SHOW fsync`).Scan(&fsync); err != nil || fsync != "on" {
		t.Errorf("fsync %q (%v): want on, as a user's server has it", fsync, err)
	}
	if !pg.UpToDate(ctx, conn) {
		t.Error("the schema is not up to date")
	}
}

// A warm boot keeps the settings written at initdb: a seed made with other
// settings is another seed (a changed testSettings makes a new one).
func TestASeedIsOneSetOfSettings(t *testing.T) {
	dir := func(settings map[string]string) string {
		d, _ := seedOf(serverKind, settings).Dir()
		return d
	}
	a := dir(map[string]string{"fsync": "off", "max_connections": "200"})
	if b := dir(map[string]string{"max_connections": "200", "fsync": "off"}); a != b {
		t.Errorf("the same settings in another order are another seed: %s, %s", a, b)
	}
	if c := dir(map[string]string{"fsync": "off", "max_connections": "300"}); a == c {
		t.Errorf("other settings share the seed %s", a)
	}
	if d, _ := firstRun(map[string]string{"fsync": "off", "max_connections": "200"}).Dir(); a == d {
		t.Errorf("a test server's seed and a first run's share %s", a)
	}
}

// A change of PostgreSQL is another seed: a run on the machine's
// PostgreSQL and then, with nothing else changed, on one a script put in
// the cache (as .ci/run does) names each its own seed, and each boots a
// copy of its own.
func TestSeedsFollowTheBinariesInUse(t *testing.T) {
	seedsOfItsOwn(t)
	t.Setenv(pg.EnvBinDir, "")
	ctx := context.Background()
	state, err := pg.DefaultStateDir()
	if err != nil {
		t.Fatal(err)
	}
	var system, other pg.Binaries
	for _, b := range pg.Installations(ctx, state) {
		if strings.HasPrefix(b.Source, "system ") && system.Dir == "" {
			system = b
		}
	}
	for _, b := range pg.Installations(ctx, state) {
		if b.Major != system.Major && other.Dir == "" {
			other = b
		}
	}
	if system.Dir == "" || other.Dir == "" {
		msg := "the machine's PostgreSQL and another major version are needed (.ci/run installs Debian's and PostgreSQL 18 in the cache)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	// First an empty cache, so the machine's binaries; then the other
	// installation in the cache, found first.
	before := t.TempDir()
	// The server's account runs initdb through it: not a private directory.
	after, err := testdir.Make("outboxlab-test-cache-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(after) })
	if err := os.MkdirAll(filepath.Join(after, "pg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other.Dir, filepath.Join(after, "pg", other.Version)); err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, cache := range []string{before, after} {
		bins, err := pg.Resolve(ctx, pg.Options{CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		seed := seedWith("firstrun", nil, bins)
		if v, ok := names[seed.Name]; ok {
			t.Fatalf("PostgreSQL %s (%s) shares the seed %s with PostgreSQL %s", bins.Version, bins.Dir, seed.Name, v)
		}
		names[seed.Name] = bins.Version
		dir := DataDir(t)
		if !seed.CopyTo(dir, false) {
			t.Fatalf("no seed for PostgreSQL %s", bins.Version)
		}
		srv, err := pg.Boot(ctx, pg.Options{DataDir: dir, CacheDir: cache})
		if err != nil {
			t.Fatalf("boot a copy of PostgreSQL %s's seed: %v", bins.Version, err)
		}
		if srv.Cold || srv.Binaries.Version != bins.Version {
			t.Errorf("PostgreSQL %s's copy: cold %v, booted by %s; want warm, by %s", bins.Version, srv.Cold, srv.Binaries.Version, bins.Version)
		}
		if err := srv.Stop(); err != nil {
			t.Error(err)
		}
	}
	if len(names) != 2 || names[seedWith("firstrun", nil, system).Name] != system.Version {
		t.Errorf("seeds %v: want one for the machine's PostgreSQL %s and one for %s", names, system.Version, other.Version)
	}
}
