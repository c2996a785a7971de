package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/outboxlab/outboxlab/internal/testdir"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/pg"
)

// shared is one lazily booted test server.
type shared struct {
	once    sync.Once
	server  *pg.Server
	bootErr error
	dataDir string
}

var (
	first   shared
	counter atomic.Int64

	// The quiet servers: every one booted (all), those no test holds
	// (free), and which test holds which (held, by test name: its subtests
	// get their parent's).
	quietMu sync.Mutex
	all     []*shared
	free    []*shared
	held    = map[string]*shared{}
)

// Settings for test servers: fsync off (a test cluster is thrown away; a
// killed server process still keeps what the OS has, which is what crash tests
// need). synchronous_commit stays on, so a commit that returned survives an
// immediate shutdown, as the crash tests assert. max_connections is raised
// from 100: the concurrency tests open 50 connections each, and a backend
// whose client has closed takes a moment to exit, so two such tests back to
// back could briefly need more than 100.
//
// scram_iterations 1, not 4096: every connection's SCRAM exchange makes
// both ends derive the key that many times, about 10 ms of CPU a connection
// under the race detector, and the tests open thousands. Passwords are
// still checked, by the same exchange; cheapVerifier gives the superuser's,
// set at initdb before this applied, the same cheaper verifier.
var testSettings = map[string]string{"fsync": "off", "full_page_writes": "off", "max_connections": "200", "scram_iterations": "1"}

// Main runs the tests, then stops the shared servers and removes their data.
func Main(m *testing.M) {
	code := m.Run()
	poolsMu.Lock()
	for _, p := range pools {
		p.closeAll()
	}
	poolsMu.Unlock()
	for _, sh := range append([]*shared{&first}, all...) {
		if sh.server != nil {
			if err := sh.server.Stop(); err != nil {
				fmt.Fprintln(os.Stderr, "pgtest: stop:", err)
			}
		}
		if sh.dataDir != "" {
			_ = os.RemoveAll(sh.dataDir)
		}
	}
	testrun.Exit(code)
}

// Server returns the shared test server, booting it on first use.
func Server(t testing.TB) *pg.Server {
	t.Helper()
	return first.get(t)
}

// Quiet returns a quiet server for this test alone until it ends (its
// subtests get their parent's): one another test held before, else a new
// one, so no test waits for another's. As many are booted as quiet tests
// run at once, at most -parallel. Nothing else runs on it, so a test may
// restart it, or read a figure of the whole server (WAL, open
// transactions) and find only its own work there. With
// $OUTBOXLAB_TEST_DATABASE_URL set it is that server, as Server is.
func Quiet(t testing.TB) *pg.Server {
	t.Helper()
	name := t.Name()
	quietMu.Lock()
	for holder, sh := range held {
		if strings.HasPrefix(name+"/", holder+"/") {
			quietMu.Unlock()
			return sh.get(t)
		}
	}
	var sh *shared
	if n := len(free); n > 0 {
		sh, free = free[n-1], free[:n-1]
	} else {
		sh = &shared{}
		all = append(all, sh)
	}
	held[name] = sh
	quietMu.Unlock()
	t.Cleanup(func() {
		quietMu.Lock()
		delete(held, name)
		free = append(free, sh)
		quietMu.Unlock()
	})
	return sh.get(t)
}

// get boots sh's server on first use, or attaches to
// $OUTBOXLAB_TEST_DATABASE_URL when it is set.
func (sh *shared) get(t testing.TB) *pg.Server {
	t.Helper()
	sh.once.Do(func() {
		if url := os.Getenv("OUTBOXLAB_TEST_DATABASE_URL"); url != "" {
			sh.server, sh.bootErr = pg.Boot(context.Background(), pg.Options{DatabaseURL: url})
			return
		}
		// The data directory is one Boot creates inside this one: outboxlab
		// gives only what it made to the server's account, and as root that
		// account must pass through here (testdir makes it 0755).
		sh.dataDir, sh.bootErr = testdir.Make("outboxlab-test-")
		if sh.bootErr != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		data := filepath.Join(sh.dataDir, "data")
		var seeded bool
		if sh.server, seeded, sh.bootErr = bootSeeded(ctx, data); seeded {
			return
		}
		sh.server, sh.bootErr = pg.Boot(ctx, pg.Options{DataDir: data, Settings: testSettings})
		if sh.bootErr == nil {
			sh.bootErr = cheapVerifier(ctx, sh.server)
		}
	})
	if sh.bootErr != nil {
		t.Fatalf("boot test PostgreSQL: %v", sh.bootErr)
	}
	return sh.server
}

// DB creates a fresh migrated database for this test and returns a pool on
// it and its name; both are dropped when the test ends.
func DB(t testing.TB) (*pgxpool.Pool, string) {
	t.Helper()
	srv := Server(t)
	name := fmt.Sprintf("t_%d_%d_%s", os.Getpid(), counter.Add(1), sanitize(t.Name()))
	ctx := context.Background()
	if err := srv.CreateDatabase(ctx, name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	pool, err := srv.Pool(ctx, name)
	if err != nil {
		t.Fatalf("open test pool: %v", err)
	}
	t.Cleanup(func() {
		pool.Close()
		if err := srv.DropDatabase(context.Background(), name); err != nil {
			t.Logf("drop test database: %v", err)
		}
	})
	return pool, name
}

func sanitize(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
		if b.Len() >= 30 {
			break
		}
	}
	return b.String()
}

// DataDir is a data directory path for a test that boots a server of its
// own: it does not exist yet (outboxlab creates it), inside a directory the
// server's account can pass through (as root the server runs as another
// account, and t.TempDir's parents are private), on a RAM file system when
// there is one with room (testdir), removed when the test ends.
func DataDir(t testing.TB) string {
	t.Helper()
	dir, err := testdir.Make("outboxlab-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return filepath.Join(dir, "data")
}

// SeededDataDir is DataDir holding what outboxlab's first run with these
// settings (nil: none, a user's) leaves in a new data directory: a stopped
// cluster, migrated (a copy of a seed cluster, see cluster.go). outboxlab
// boots it warm, about 1.1 s of CPU less than the cold boot of an empty
// one. Boot it with the same settings: a warm boot keeps those written at
// initdb. A test of the first boot itself takes DataDir. Where no copy can
// be made it is DataDir, and outboxlab boots cold.
func SeededDataDir(t testing.TB, settings map[string]string) string {
	t.Helper()
	dir := DataDir(t)
	seed := firstRun(settings)
	if seed.CopyTo(dir, false) {
		t.Cleanup(func() {
			if t.Failed() {
				at, _ := seed.Dir()
				t.Logf("this test's data directory was a copy of the test seed %s: if the failure is the seed's, remove %s and it is made anew", seed.Name, at)
			}
		})
	}
	return dir
}

// cheapVerifier sets the superuser's password again, the same one, so that
// its SCRAM verifier takes scram_iterations from testSettings: initdb stored
// it with PostgreSQL's default of 4096.
func cheapVerifier(ctx context.Context, srv *pg.Server) error {
	u, err := url.Parse(srv.URL())
	if err != nil {
		return fmt.Errorf("test server URL: %w", err)
	}
	password, _ := u.User.Password()
	conn, err := pgx.Connect(ctx, srv.URL())
	if err != nil {
		return fmt.Errorf("test server: %w", err)
	}
	defer conn.Close(ctx)
	// A utility statement takes no parameters: the password as a literal.
	literal := "'" + strings.ReplaceAll(password, "'", "''") + "'"
	if _, err := conn.Exec(ctx, "ALTER ROLE CURRENT_USER PASSWORD "+literal); err != nil {
		return fmt.Errorf("test server: set the superuser's verifier: %w", err)
	}
	return nil
}

// Owner boots a server on a data directory of its own, as another live
// outboxlab would have it, for a test of what a second one does beside it;
// it returns the directory and the owner, stopped when the test ends.
func Owner(t testing.TB) (string, *pg.Server) {
	t.Helper()
	dir := DataDir(t)
	owner, err := pg.Boot(context.Background(), pg.Options{DataDir: dir})
	if err != nil {
		t.Fatalf("boot the owner's server: %v", err)
	}
	t.Cleanup(func() { _ = owner.Stop() })
	return dir, owner
}

// Query runs a query of one value (a count, mostly, or a figure such as
// an age in seconds) on the database at url, on a connection of its own,
// as psql would: a test reads a figure from what the database holds.
func Query[T any](t testing.TB, url, sql string, args ...any) T {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var v T
	if err := conn.QueryRow(ctx, sql, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}
