package workshop

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	gossh "golang.org/x/crypto/ssh"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// room starts a room on a PostgreSQL of its own in a temporary data
// directory, serving until the test ends.
// noSSH, as a Config's SSH for startRoom, is a room with the web door alone.
const noSSH = "-"

func startRoom(t testing.TB, cfg Config) *Room {
	t.Helper()
	r, _ := startRoomStop(t, cfg)
	return r
}

// startRoomStop is startRoom with a stop of the room before the test
// ends (and the same data directory for the next room, cfg.PG.DataDir
// given: the room restarted).
func startRoomStop(t testing.TB, cfg Config) (*Room, func()) {
	t.Helper()
	if testing.Short() {
		t.Skip("boots PostgreSQL")
	}
	switch cfg.SSH {
	case noSSH:
		cfg.SSH = ""
	default:
		cfg.SSH = "127.0.0.1:0"
	}
	fsyncOff := map[string]string{"fsync": "off"}
	dataDir := cfg.PG.DataDir
	if dataDir == "" {
		dataDir = pgtest.SeededDataDir(t, fsyncOff)
	}
	cfg.PG = pg.Options{DataDir: dataDir, Settings: fsyncOff}
	if cfg.SpareSeats == 0 {
		// One seat's databases made ahead: a test's first learner takes
		// spares, the next is cloned as they join, and a suite of rooms
		// does not clone eighty databases each.
		cfg.SpareSeats = 1
	}
	if err := cfg.check(); err != nil {
		t.Fatal(err)
	}
	ready, told := make(chan struct{}), cfg.Ready
	cfg.Ready = func(ssh, http string) {
		if told != nil {
			told(ssh, http)
		}
		close(ready)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r, err := open(ctx, cfg)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.serve(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("room: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	// Once the room serves, its own goroutines (the doors' listeners) are
	// all there: a count of goroutines taken now is the room's level.
	select {
	case <-ready:
	case err := <-done:
		done <- err // for stop
		t.Fatalf("the room ended before it served: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("the room did not serve within a minute")
	}
	return r, stop
}

// terminal is a learner's ssh client with a pty: what the room drew, as
// text.
type terminal struct {
	t      *testing.T
	client *gossh.Client
	sess   *gossh.Session
	in     io.WriteCloser
	mu     sync.Mutex
	out    bytes.Buffer
	ended  chan error
}

func (tm *terminal) Write(p []byte) (int, error) {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.out.Write(p)
}

var escapes = regexp.MustCompile(`\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78])`)

// text is everything drawn so far, escape sequences removed.
func (tm *terminal) text() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return escapes.ReplaceAllString(tm.out.String(), "")
}

func clientConfig(user string, signer gossh.Signer) *gossh.ClientConfig {
	auth := []gossh.AuthMethod{gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) { return nil, nil })}
	if signer != nil {
		auth = append([]gossh.AuthMethod{gossh.PublicKeys(signer)}, auth...)
	}
	return &gossh.ClientConfig{User: user, Auth: auth, HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second}
}

// connect opens a shell on a w×h pty as user.
func connect(t *testing.T, r *Room, user string, w, h int, signer gossh.Signer) *terminal {
	t.Helper()
	c, err := gossh.Dial("tcp", r.sshLn.Addr().String(), clientConfig(user, signer))
	if err != nil {
		t.Fatalf("ssh %s: %v", user, err)
	}
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	tm := &terminal{t: t, client: c, sess: s, ended: make(chan error, 1)}
	s.Stdout, s.Stderr = tm, tm
	if tm.in, err = s.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := s.RequestPty("xterm-256color", h, w, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Shell(); err != nil {
		t.Fatal(err)
	}
	go func() { tm.ended <- s.Wait() }()
	t.Cleanup(func() { _ = c.Close() })
	return tm
}

func (tm *terminal) keys(ks ...string) {
	for _, k := range ks {
		if _, err := tm.in.Write([]byte(k)); err != nil {
			tm.t.Fatalf("key %q: %v", k, err)
		}
		time.Sleep(300 * time.Millisecond) // pacing: keys at a person's pace, the program's answer to one before the next
	}
}

// waitText waits until the screen shows s.
func (tm *terminal) waitText(s string) {
	tm.t.Helper()
	shown := false
	defer func() {
		if !shown {
			tm.t.Logf("the screen shows:\n%s", tail(tm.text(), 2000))
		}
	}()
	testrun.Eventually(tm.t, 30*time.Second, fmt.Sprintf("the screen showing %q", s), func() bool { return strings.Contains(tm.text(), s) })
	shown = true
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// waitLearner waits until the room sees learner id as ok says.
func waitLearner(t *testing.T, r *Room, id, what string, ok func(LearnerView) bool) LearnerView {
	t.Helper()
	var found LearnerView
	testrun.Awaited(t, 60*time.Second, id+" "+what, r.Learners, func(vs []LearnerView) bool {
		for _, v := range vs {
			if v.ID == id && ok(v) {
				found = v
				return true
			}
		}
		return false
	})
	return found
}

// waitGone waits until the learner's session and its cleanup are over.
func waitGone(t testing.TB, r *Room, id string) {
	t.Helper()
	testrun.Eventually(t, 60*time.Second, id+"'s session and its cleanup over", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		l := r.learners[id]
		return l != nil && !l.active
	})
}

// count reads one count from the room's server, database db.
func count(t testing.TB, r *Room, db, sql string, args ...any) int {
	t.Helper()
	return pgtest.Query[int](t, r.srv.DatabaseURL(db), sql, args...)
}

const sqlBackendsOf = `SELECT count(*) FROM pg_stat_activity WHERE datname LIKE $1`

// TestLearnerResumesTheirStepAndLeavesNothing connects as ana through SSH,
// is sent to the trace lesson by the instructor, passes its first step by
// keys (p C D) and moves on with enter; hangs up: ana's backends and
// databases are gone and the goroutines back to their level; connects
// again as ana and is on the second step.
func TestLearnerResumesTheirStepAndLeavesNothing(t *testing.T) {
	r := startRoom(t, Config{})
	before := runtimeGoroutines()

	ana := connect(t, r, "ana", 120, 40, nil)
	waitLearner(t, r, "ana", "on the first lesson", func(v LearnerView) bool { return v.Lesson == "dual-write" && v.Step == 1 })
	ana.waitText("dual-write")
	if err := r.SendLesson("trace", "ana"); err != nil {
		t.Fatal(err)
	}
	waitLearner(t, r, "ana", "sent to trace", func(v LearnerView) bool { return v.Lesson == "trace" && v.Step == 1 && v.Ready })
	ana.keys("p", "C", "D")
	v := waitLearner(t, r, "ana", "past trace's first step", func(v LearnerView) bool { return v.Place == lessons.PlacePassed })
	if v.Checks != v.Total || v.Passed != 1 {
		t.Errorf("after the step: %+v", v)
	}
	ana.waitText("step passed")
	backends := count(t, r, "postgres", sqlBackendsOf, "ws_ana%")
	t.Logf("ana's simulator holds %d PostgreSQL connections (ConnsPerLearner %d)", backends, ConnsPerLearner)
	if backends == 0 || backends > ConnsPerLearner {
		t.Errorf("%d backends on ana's databases; ConnsPerLearner is %d", backends, ConnsPerLearner)
	}
	ana.keys("\r")
	waitLearner(t, r, "ana", "on the second step", func(v LearnerView) bool { return v.Step == 2 && v.Place == lessons.PlaceStep })

	// A dropped connection, not a quit.
	_ = ana.client.Close()
	waitGone(t, r, "ana")
	if n := count(t, r, "postgres", sqlBackendsOf, "ws_ana%"); n != 0 {
		t.Errorf("%d backends left on ana's databases after she left", n)
	}
	if n := count(t, r, "postgres", `SELECT count(*) FROM pg_database WHERE datname LIKE 'ws_ana%'`); n != 0 {
		t.Errorf("%d of ana's databases left after she left", n)
	}
	waitGoroutines(t, before)

	again := connect(t, r, "ana", 120, 40, nil)
	v = waitLearner(t, r, "ana", "back", func(v LearnerView) bool { return v.Connected && v.Lesson != "" })
	if v.Lesson != "trace" || v.Step != 2 {
		t.Errorf("ana came back to %s step %d; want trace step 2", v.Lesson, v.Step)
	}
	again.waitText("2/2")
}

// TestTwoLearnersSeeOnlyTheirOwnDatabases: ana and bea at once, ana sends a
// payment: her outbox database has it, bea's has none; a third learner on
// a room of two is told it is full, and the two go on.
func TestTwoLearnersSeeOnlyTheirOwnDatabases(t *testing.T) {
	t.Parallel() // a room of its own; the goroutine leak checks, sequential, run before it
	r := startRoom(t, Config{MaxLearners: 2})
	ana := connect(t, r, "ana", 120, 40, nil)
	bea := connect(t, r, "bea", 120, 40, nil)
	for _, id := range []string{"ana", "bea"} {
		waitLearner(t, r, id, "running", func(v LearnerView) bool { return v.Lesson == "dual-write" && v.Ready })
	}
	peak := samplePeak(t, r, "ws_ana%")
	ana.keys("p", "D")
	waitLearner(t, r, "ana", "past the step", func(v LearnerView) bool { return v.Place == lessons.PlacePassed })
	// A crash of the naive actor, now (c opens the chooser, 1 naive, 1 now;
	// c alone crashed nothing): its connection goes while the peak is taken.
	ana.keys("c", "1", "1")
	ana.waitText("naive died between units of work")
	if n := peak(); n == 0 || n > ConnsPerLearner {
		t.Errorf("ana's simulator (compare: two pipelines) peaked at %d connections; ConnsPerLearner is %d", n, ConnsPerLearner)
	} else {
		t.Logf("ana's simulator, compare mode through a drain: at most %d PostgreSQL connections (ConnsPerLearner %d)", n, ConnsPerLearner)
	}
	if n := count(t, r, "ws_ana_outbox", `SELECT count(*) FROM payments`); n != 1 {
		t.Errorf("ana's outbox database has %d payments; want 1", n)
	}
	if n := count(t, r, "ws_bea_outbox", `SELECT count(*) FROM payments`); n != 0 {
		t.Errorf("bea's outbox database has %d payments; want 0 (ana's are hers)", n)
	}
	if v := waitLearner(t, r, "bea", "still on her step", func(v LearnerView) bool { return true }); v.Place != lessons.PlaceStep || v.Passed != 0 {
		t.Errorf("bea moved with ana: %+v", v)
	}

	cid := connect(t, r, "cid", 120, 40, nil)
	select {
	case <-cid.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the third learner was not sent away")
	}
	if !strings.Contains(cid.text(), "the room is full (2 learners connected)") {
		t.Errorf("the third learner read %q", cid.text())
	}
	bea.keys("p", "D")
	waitLearner(t, r, "bea", "past her step after the room refused cid", func(v LearnerView) bool { return v.Place == lessons.PlacePassed })
}

// TestRoomRefusesWhatItCannotServe: no pty gets a message and exit 1; a
// terminal under 80×24 the simulator's too-small screen; a second session
// as ana (with a key) is told apart by the key's fingerprint; restart-
// postgres is refused with the reason; a pause shows on the learner's
// screen until resumed.
func TestRoomRefusesWhatItCannotServe(t *testing.T) {
	t.Parallel() // a room of its own; the goroutine leak checks, sequential, run before it
	r := startRoom(t, Config{})
	c, err := gossh.Dial("tcp", r.sshLn.Addr().String(), clientConfig("ana", nil))
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.CombinedOutput("echo hi")
	var exit *gossh.ExitError
	if !errors.As(err, &exit) || exit.ExitStatus() != 1 || !strings.Contains(string(out), "this is a terminal app and your ssh asked for no terminal") {
		t.Errorf("no pty: %v, %q", err, out)
	}
	c.Close()

	small := connect(t, r, "tiny", 60, 20, nil)
	small.waitText("terminal too small: need 80×24")

	_, key, _ := ed25519.GenerateKey(rand.Reader)
	signer, _ := gossh.NewSignerFromKey(key)
	ana := connect(t, r, "ana", 120, 40, signer)
	waitLearner(t, r, "ana", "running", func(v LearnerView) bool { return v.Ready })
	twin := connect(t, r, "ana", 120, 40, signer)
	id := "ana_" + shortKey(gossh.FingerprintSHA256(signer.PublicKey()))
	waitLearner(t, r, id, "the second ana, by her key", func(v LearnerView) bool { return v.Connected })
	_ = twin

	ana.keys("R")
	ana.waitText("restart-postgres is off in a workshop")

	r.Pause("Eyes on the projector, please")
	ana.waitText("Eyes on the projector, please")
	ana.keys("p") // waits: the room is paused
	r.Pause("")
	ana.keys("p", "D")
	waitLearner(t, r, "ana", "past the step after the pause", func(v LearnerView) bool { return v.Place == lessons.PlacePassed })
	if n := count(t, r, "ws_ana_outbox", `SELECT count(*) FROM payments`); n != 1 {
		t.Errorf("%d payments: want 1, the p pressed while paused waits", n)
	}
}

// samplePeak counts the backends on databases like pattern every 20 ms
// until the function it returns is called, which returns the most seen.
func samplePeak(t *testing.T, r *Room, pattern string) func() int {
	conn, err := pgx.Connect(t.Context(), r.srv.DatabaseURL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	stop, done := make(chan struct{}), make(chan int)
	go func() {
		defer conn.Close(context.Background())
		peak := 0
		for {
			var n int
			if conn.QueryRow(context.Background(), sqlBackendsOf, pattern).Scan(&n) == nil {
				peak = max(peak, n)
			}
			select {
			case <-stop:
				done <- peak
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return func() int { close(stop); return <-done }
}

func runtimeGoroutines() int { return runtime.NumGoroutine() }

// waitGoroutines waits until the goroutines are back to before's level (a
// few of the SSH server's own may take a moment to end).
func waitGoroutines(t testing.TB, before int) {
	t.Helper()
	back := false
	defer func() {
		if !back {
			buf := make([]byte, 1<<20)
			t.Logf("%d goroutines, %d before the learner came:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
	}()
	testrun.Eventually(t, 20*time.Second, fmt.Sprintf("the goroutines back to the %d before the learner came", before), func() bool {
		return runtime.NumGoroutine() <= before
	})
	back = true
}

func netListen() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }

// TestAccessRestricted: with --authorized-keys a key not in the file is
// refused at the handshake and one in it let in; with --password the
// wrong one is refused. No PostgreSQL: access is decided before a session.
func TestAccessRestricted(t *testing.T) {
	_, k1, _ := ed25519.GenerateKey(rand.Reader)
	_, k2, _ := ed25519.GenerateKey(rand.Reader)
	known, _ := gossh.NewSignerFromKey(k1)
	unknown, _ := gossh.NewSignerFromKey(k2)
	dir := t.TempDir()
	keys := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(keys, gossh.MarshalAuthorizedKey(known.PublicKey()), 0o600); err != nil {
		t.Fatal(err)
	}
	serve := func(cfg Config) string {
		r := &Room{cfg: cfg, dir: dir}
		s, err := r.newSSH()
		if err != nil {
			t.Fatal(err)
		}
		ln, err := netListen()
		if err != nil {
			t.Fatal(err)
		}
		go func() { _ = s.Serve(ln) }()
		t.Cleanup(func() { _ = s.Close() })
		if st, err := os.Stat(filepath.Join(dir, HostKeyFile)); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("host key: %v, %v", st.Mode(), err)
		}
		return ln.Addr().String()
	}
	addr := serve(Config{AuthorizedKeys: keys})
	if _, err := gossh.Dial("tcp", addr, clientConfig("eve", unknown)); err == nil || !strings.Contains(err.Error(), "unable to authenticate") {
		t.Errorf("an unknown key: %v", err)
	}
	c, err := gossh.Dial("tcp", addr, clientConfig("ana", known))
	if err != nil {
		t.Errorf("a key in the file: %v", err)
	} else {
		c.Close()
	}
	addr = serve(Config{Password: "outbox"})
	pw := func(p string) *gossh.ClientConfig {
		return &gossh.ClientConfig{User: "ana", Auth: []gossh.AuthMethod{gossh.Password(p)}, HostKeyCallback: gossh.InsecureIgnoreHostKey()}
	}
	if _, err := gossh.Dial("tcp", addr, pw("inbox")); err == nil {
		t.Error("the wrong password let in")
	}
	if c, err := gossh.Dial("tcp", addr, pw("outbox")); err != nil {
		t.Errorf("the password: %v", err)
	} else {
		c.Close()
	}
}

// TestConfigRefusesAnOpenRoomOnTheNetwork: a listener beyond loopback
// without --password or --authorized-keys is bad input, with the reason.
func TestConfigRefusesAnOpenRoomOnTheNetwork(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{SSH: "0.0.0.0:2222"}, "give --password PW"},
		{Config{SSH: ":2222"}, "give --password PW"},
		{Config{SSH: "2222"}, "want HOST:PORT"},
		{Config{SSH: "127.0.0.1:2222", MaxLearners: -1}, "--max-learners -1"},
		{Config{SSH: "127.0.0.1:2222", AuthorizedKeys: "/nonexistent"}, "--authorized-keys"},
		{Config{SSH: "127.0.0.1:2222", Lang: "fr"}, "--lang"},
	} {
		err := c.cfg.check()
		var u *badinput.Error
		if !errors.As(err, &u) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v; want a usage error saying %q", c.cfg, err, c.want)
		}
	}
	ok := []Config{{SSH: "127.0.0.1:2222"}, {SSH: "localhost:2222"}, {SSH: "0.0.0.0:2222", Password: "pw"}}
	for _, c := range ok {
		if err := c.check(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

// TestRoomRaisesAClusterMadeSmaller: a data directory initialised with the
// default max_connections (the simulator's) is raised for the room and
// restarted; the room's size then holds.
func TestRoomRaisesAClusterMadeSmaller(t *testing.T) {
	t.Parallel() // a room of its own; the goroutine leak checks, sequential, run before it
	if testing.Short() {
		t.Skip("boots PostgreSQL")
	}
	fsyncOff := map[string]string{"fsync": "off"}
	opts := pg.Options{DataDir: pgtest.SeededDataDir(t, fsyncOff), Settings: fsyncOff}
	srv, err := pg.Boot(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	srv, err = bootSized(t.Context(), opts, 30)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	conn, err := pgx.Connect(t.Context(), srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for name, want := range sizeFor(30) {
		var got string
		if err := conn.QueryRow(t.Context(), "SELECT current_setting($1)", name).Scan(&got); err != nil || got != want {
			t.Errorf("%s = %s (%v); want %s", name, got, err, want)
		}
	}
}

// A --ssh address another program listens on: the room says so, bad input
// (exit 2), and stops the PostgreSQL it had booted. It panicked instead
// (the cleanup read the room it was returning as nil), leaving the
// server running.
func TestRoomOnATakenPortSaysSoAndStopsItsServer(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("boots PostgreSQL")
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	fsyncOff := map[string]string{"fsync": "off"}
	dir := pgtest.SeededDataDir(t, fsyncOff)
	cfg := Config{SSH: taken.Addr().String(), PG: pg.Options{DataDir: dir, Settings: fsyncOff}}
	if err := cfg.check(); err != nil {
		t.Fatal(err)
	}
	r, err := open(context.Background(), cfg)
	if r != nil || !badinput.Is(err) || !strings.Contains(err.Error(), "--ssh "+taken.Addr().String()) {
		t.Fatalf("open on a taken port: room %v, error %v; want none, and bad input naming --ssh", r, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pgdata", "postmaster.pid")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the room's PostgreSQL is still running after the refusal (postmaster.pid: %v)", err)
	}
}
