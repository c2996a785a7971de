package workshop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/jackc/pgx/v5"
	gossh "golang.org/x/crypto/ssh"

	"github.com/outboxlab/outboxlab/lessons"
)

// The load harness: learners who join a room at once through one of its
// doors, each a real client (an SSH client with a pty, or a WebSocket as
// the page's), who press a key every 500 ms and time each to the frame
// that shows its effect. TestRoomOf30, TestWebRoomOf30 and BenchmarkRoom
// drive it.

// roomLearners is the load tests' room: 3 in the ordinary run (about 15 s
// under -race), 30 for the figures (`go test -run TestRoomOf30
// -room.learners=30 ./workshop/`, without -race, under the heavy lock).
var roomLearners = flag.Int("room.learners", 3, "learners TestRoomOf30 connects at once")

// roomKeys is how long each learner presses a key every 500 ms, timing
// each to the frame that shows its effect: 5 s in the ordinary run, 60 s
// for the figures (-room.keys=60s -room.limit=2s).
var roomKeys = flag.Duration("room.keys", 5*time.Second, "how long TestRoomOf30's learners press a key every 500 ms")

// keyLimitFlag is how long a key's effect is waited for before it counts as
// never shown: 10 s in the ordinary run, which runs beside the rest of the
// suite on two cores and checks that every key's effect shows, not how
// soon (measured there: p50 1.2 s while the ui package played its lessons);
// 2 s for the figures (-room.limit=2s), where a slower one is a miss.
var keyLimitFlag = flag.Duration("room.limit", 10*time.Second, "how long TestRoomOf30 waits for a key's effect before it counts as never shown")

// loadLearner is one learner of a load: a real client, timed from the
// dial to the simulator running.
type loadLearner struct {
	id      string
	in      io.Writer
	screen  *keyWatch
	shell   time.Duration   // dial → session open (SSH: handshake, auth, pty; web: WebSocket and hello)
	running time.Duration   // dial → the learner's simulator running (scene built)
	keys    []time.Duration // each key → the first frame showing its effect
	misses  int             // keys whose effect never showed within -room.limit
	// received counts the bytes the room sent the learner's terminal.
	received atomic.Int64
	// pressed, if set, is told of each key that shows the hint, as it is
	// pressed: a watcher of the learner's screen times it too.
	pressed func(at time.Time)
	hangUp  func()
	// ssh is the learner's session (nil through the web door); ended is
	// closed when it has ended, waitErr what its Wait said.
	sess    *gossh.Session
	ended   chan struct{}
	waitErr error
}

// loadDoor lets a learner in through one of the room's doors and waits
// for their simulator to run; also gets what their terminal is sent.
type loadDoor func(r *Room, id string, also ...io.Writer) (*loadLearner, error)

// byteCount counts what a learner's terminal is sent.
type byteCount struct{ n *atomic.Int64 }

func (c byteCount) Write(p []byte) (int, error) { c.n.Add(int64(len(p))); return len(p), nil }

// dialLearner connects as id over SSH on a 120×40 pty and waits for
// their simulator to run.
func dialLearner(r *Room, id string, also ...io.Writer) (*loadLearner, error) {
	start := time.Now()
	l := &loadLearner{id: id, screen: &keyWatch{seen: make(chan time.Duration, 1)}}
	client, err := gossh.Dial("tcp", r.sshLn.Addr().String(), clientConfig(id, nil))
	if err != nil {
		return l, fmt.Errorf("ssh %s: %w", id, err)
	}
	l.hangUp = func() { _ = client.Close() }
	if l.sess, err = client.NewSession(); err != nil {
		return l, fmt.Errorf("%s: session: %w", id, err)
	}
	l.sess.Stdout = io.MultiWriter(append([]io.Writer{l.screen, byteCount{&l.received}}, also...)...)
	l.sess.Stderr = discardTerm{}
	if l.in, err = l.sess.StdinPipe(); err != nil {
		return l, err
	}
	if err := l.sess.RequestPty("xterm-256color", 40, 120, gossh.TerminalModes{}); err != nil {
		return l, fmt.Errorf("%s: pty: %w", id, err)
	}
	if err := l.sess.Shell(); err != nil {
		return l, fmt.Errorf("%s: shell: %w", id, err)
	}
	// The session ended (its exit status sent), the client closes its
	// connection, as ssh(1) does: the room's stop waits for that, and a
	// client that kept it open would be cut only at the stop's deadline.
	l.ended = make(chan struct{})
	go func() {
		l.waitErr = l.sess.Wait()
		_ = client.Close()
		close(l.ended)
	}()
	l.shell = time.Since(start)
	if err := l.until(r, "running", time.Minute, func(v LearnerView) bool { return v.Ready && v.Place == lessons.PlaceStep }); err != nil {
		return l, err
	}
	l.running = time.Since(start)
	return l, nil
}

// webKeys are a web learner's keys: one binary message each, as the
// page sends them.
type webKeys struct{ c *websocket.Conn }

func (k webKeys) Write(p []byte) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := k.c.Write(ctx, websocket.MessageBinary, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// dialWebLearner joins as id through the web door on a 120×40 terminal
// and waits for their simulator to run.
func dialWebLearner(r *Room, id string, also ...io.Writer) (*loadLearner, error) {
	start := time.Now()
	l := &loadLearner{id: id, screen: &keyWatch{seen: make(chan time.Duration, 1)}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+r.WebAddr()+"/join", nil)
	if err != nil {
		return l, fmt.Errorf("%s: %w", id, err)
	}
	c.SetReadLimit(1 << 20)
	l.in, l.hangUp = webKeys{c}, func() { c.CloseNow() }
	hello, _ := json.Marshal(webHello{Name: id, Lang: "en", Cols: 120, Rows: 40})
	if err := c.Write(ctx, websocket.MessageText, hello); err != nil {
		return l, fmt.Errorf("%s: hello: %w", id, err)
	}
	l.shell = time.Since(start)
	out := io.MultiWriter(append([]io.Writer{l.screen, byteCount{&l.received}}, also...)...)
	go func() {
		for {
			_, b, err := c.Read(context.Background())
			if err != nil {
				return
			}
			_, _ = out.Write(b)
		}
	}()
	if err := l.until(r, "running", time.Minute, func(v LearnerView) bool { return v.Ready && v.Place == lessons.PlaceStep }); err != nil {
		return l, err
	}
	l.running = time.Since(start)
	return l, nil
}

// loadResult is what a load measured.
type loadResult struct {
	learners    []*loadLearner
	joins, runs []time.Duration // dial → session; dial → simulator running
	keys        []time.Duration // key → frame, every learner's
	misses      int
	received    int64         // bytes sent to the learners while they pressed keys
	pressing    time.Duration // the longest time a learner pressed keys
	// peakRoom is the room's most client backends seen, peakLearner one
	// learner's.
	peakRoom, peakLearner int
}

// loadRoom lets n learners (ids prefix00…) in through door at once; once
// all run, pressing (if set) is called, then each presses h every 500 ms
// for keysFor, then passes the first step and crashes the actors (work).
// A failure to join or a step not passed fails tb.
func loadRoom(tb testing.TB, r *Room, door loadDoor, n int, prefix string, keysFor time.Duration, pressing func([]*loadLearner)) loadResult {
	tb.Helper()
	sample := sampleBackends(tb, r)
	res := loadResult{learners: make([]*loadLearner, n)}
	errs := make(chan error, n)
	var joined, wg sync.WaitGroup
	joined.Add(n)
	allIn := make(chan struct{})
	var mu sync.Mutex
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := door(r, fmt.Sprintf("%s%02d", prefix, i))
			res.learners[i] = l
			joined.Done()
			if err != nil {
				errs <- err
				return
			}
			<-allIn
			before, start := l.received.Load(), time.Now()
			if err = l.pressKeys(keysFor); err == nil {
				mu.Lock()
				res.received += l.received.Load() - before
				res.pressing = max(res.pressing, time.Since(start))
				mu.Unlock()
				err = l.work(r)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	joined.Wait()
	if pressing != nil && len(errs) == 0 {
		pressing(res.learners)
	}
	close(allIn)
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Error(err)
	}
	res.peakRoom, res.peakLearner = sample()
	if tb.Failed() {
		tb.FailNow()
	}
	for _, l := range res.learners {
		res.joins, res.runs = append(res.joins, l.shell), append(res.runs, l.running)
		res.keys = append(res.keys, l.keys...)
		res.misses += l.misses
		if got := count(tb, r, "ws_"+l.id+"_outbox", `SELECT count(*) FROM payments`); got != 1 {
			tb.Errorf("%s's outbox database has %d payments; want 1 (their own p)", l.id, got)
		}
	}
	if len(res.keys) == 0 {
		tb.Fatalf("no key's effect showed within %s (%d keys)", *keyLimitFlag, res.misses)
	}
	if res.misses > len(res.keys)/10 {
		tb.Errorf("%d of %d keys' effects never showed within %s", res.misses, len(res.keys)+res.misses, *keyLimitFlag)
	}
	return res
}

// leaveAll hangs every learner up at once and checks the room kept
// nothing of theirs on the server: backends, roles, databases.
func leaveAll(tb testing.TB, r *Room, learners []*loadLearner, backendsBefore int) {
	tb.Helper()
	for _, l := range learners {
		l.hangUp()
	}
	for _, l := range learners {
		waitGone(tb, r, l.id)
	}
	for _, c := range []struct{ what, sql string }{
		{"backends on learners' databases", `SELECT count(*) FROM pg_stat_activity WHERE datname LIKE 'ws\_%'`},
		{"learners' roles", `SELECT count(*) FROM pg_roles WHERE rolname LIKE 'ws\_%'`},
		{"learners' databases", `SELECT count(*) FROM pg_database WHERE datname LIKE 'ws\_%'`},
	} {
		if got := count(tb, r, "postgres", c.sql); got != 0 {
			tb.Errorf("%d %s left after all left", got, c.what)
		}
	}
	if got := clientBackends(tb, r); got > backendsBefore {
		tb.Errorf("%d client backends after all left; %d before they came", got, backendsBefore)
	}
}

func clientBackends(tb testing.TB, r *Room) int {
	return count(tb, r, "postgres", `SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'`)
}

// work presses p and D (a payment sent and drained: the step passes),
// then crashes the naive actor (c, 1 naive, 1 now: c alone only opens the
// chooser) and waits for the screen to say it died.
func (l *loadLearner) work(r *Room) error {
	press := func(keys ...string) error {
		for _, k := range keys {
			if _, err := l.in.Write([]byte(k)); err != nil {
				return fmt.Errorf("%s: key %s: %w", l.id, k, err)
			}
			time.Sleep(300 * time.Millisecond) // pacing: keys at a person's pace, the program's answer to one before the next
		}
		return nil
	}
	if err := press("p", "D"); err != nil {
		return err
	}
	if err := l.until(r, "past the step", time.Minute, func(v LearnerView) bool { return v.Place == lessons.PlacePassed }); err != nil {
		return err
	}
	l.screen.await(crashShown)
	if err := press("c", "1", "1"); err != nil {
		return err
	}
	select {
	case <-l.screen.seen:
		return nil
	case <-time.After(time.Minute):
		return fmt.Errorf("%s: the screen never said %q", l.id, crashShown)
	}
}

// crashShown is what the timeline says once the naive actor is crashed.
const crashShown = "naive died between units of work"

// hintShown is what the frame after h shows on the first lesson's first
// step: its hint. h again hides it (that frame is not timed: what it
// shows was on screen before).
const hintShown = "Nothing fails here"

// pressKeys presses h every 500 ms for d, showing and hiding the step's
// hint, and times each showing to the first output that has it.
func (l *loadLearner) pressKeys(d time.Duration) error {
	show := true
	for end := time.Now().Add(d); time.Now().Before(end); show = !show {
		want := ""
		if show {
			want = hintShown
		}
		pressed := l.screen.await(want)
		if show && l.pressed != nil {
			l.pressed(pressed)
		}
		if _, err := l.in.Write([]byte("h")); err != nil {
			return fmt.Errorf("%s: key h: %w", l.id, err)
		}
		if show {
			select {
			case took := <-l.screen.seen:
				l.keys = append(l.keys, took)
			case <-time.After(*keyLimitFlag):
				l.misses++
				l.screen.await("")
			}
		}
		time.Sleep(time.Until(pressed.Add(500 * time.Millisecond))) // pacing: h every 500 ms
	}
	if !show { // the hint shows: hide it
		_, _ = l.in.Write([]byte("h"))
		time.Sleep(500 * time.Millisecond) // pacing: the last h, as the others, 500 ms before the next key
	}
	return nil
}

// keyWatch is a learner's terminal that times a key to the first output
// after it that shows the text awaited, escape sequences removed.
type keyWatch struct {
	mu      sync.Mutex
	want    string
	out     bytes.Buffer
	pressed time.Time
	seen    chan time.Duration
}

// await starts timing from now for want ("" stops).
func (k *keyWatch) await(want string) time.Time {
	k.mu.Lock()
	defer k.mu.Unlock()
	select {
	case <-k.seen: // a late one
	default:
	}
	k.want, k.pressed = want, time.Now()
	k.out.Reset()
	return k.pressed
}

func (k *keyWatch) Write(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.want == "" {
		return len(p), nil
	}
	k.out.Write(p)
	if strings.Contains(escapes.ReplaceAllString(k.out.String(), ""), k.want) {
		k.seen <- time.Since(k.pressed)
		k.want = ""
		k.out.Reset()
	}
	return len(p), nil
}

// until polls the room's view of the learner until ok.
//
// A loop of its own, not testrun.Eventually: it runs on the learner's
// goroutine and says its failure as an error, for the test to report.
func (l *loadLearner) until(r *Room, what string, limit time.Duration, ok func(LearnerView) bool) error {
	deadline := time.Now().Add(limit)
	for {
		for _, v := range r.Learners() {
			if v.ID == l.id && ok(v) {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s never %s in %s", l.id, what, limit)
		}
		time.Sleep(25 * time.Millisecond) // its own loop's pace (see above)
	}
}

// discardTerm is a learner's terminal nobody reads.
type discardTerm struct{}

func (discardTerm) Write(p []byte) (int, error) { return len(p), nil }

var learnerDB = regexp.MustCompile(`^ws_(.+)_(outbox|naive)$`)

// sampleBackends counts the client backends every 20 ms, the room's and
// each learner's (by their databases), until the function it returns is
// called: the peaks seen.
func sampleBackends(tb testing.TB, r *Room) func() (room, learner int) {
	conn, err := pgx.Connect(tb.Context(), r.srv.DatabaseURL("postgres"))
	if err != nil {
		tb.Fatal(err)
	}
	stop, done := make(chan struct{}), make(chan [2]int)
	go func() {
		defer conn.Close(context.Background())
		var peak [2]int
		for {
			rows, err := conn.Query(context.Background(), `SELECT coalesce(datname, ''), count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' GROUP BY 1`)
			if err == nil {
				total, per := 0, map[string]int{}
				for rows.Next() {
					var db string
					var c int
					if rows.Scan(&db, &c) == nil {
						total += c
						if m := learnerDB.FindStringSubmatch(db); m != nil {
							per[m[1]] += c
						}
					}
				}
				rows.Close()
				peak[0] = max(peak[0], total)
				for _, c := range per {
					peak[1] = max(peak[1], c)
				}
			}
			select {
			case <-stop:
				done <- peak
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return func() (int, int) { close(stop); p := <-done; return p[0], p[1] }
}

// memory is the process's resident set and its peak, from /proc (Linux).
func memory(tb testing.TB) (rss, hwm int64) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		tb.Logf("no /proc: %v", err)
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var kb int64
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			fmt.Sscan(v, &kb)
			rss = kb << 10
		}
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			fmt.Sscan(v, &kb)
			hwm = kb << 10
		}
	}
	return rss, hwm
}

// hostUse is what the room costs its host at one moment, from /proc
// (Linux): this process (the room) and the room's PostgreSQL (its
// postmaster and every backend).
type hostUse struct {
	at time.Time
	// cpu is CPU time used so far: the process's; PostgreSQL's, its
	// live processes' and what the postmaster reaped of those gone.
	cpu, pgCPU time.Duration
	// rss is the process's resident memory; pgPSS PostgreSQL's
	// proportional set (each backend's share of the shared buffers, not
	// the whole of them once per backend).
	rss, pgPSS int64
}

// clockTick is the kernel's USER_HZ, the unit of /proc/PID/stat's times
// (100 on every Linux outboxlab runs on).
const clockTick = 100

// measureHost reads what the room costs its host now.
func measureHost(tb testing.TB, r *Room) hostUse {
	tb.Helper()
	u := hostUse{at: time.Now()}
	stat := func(pid string) (ppid string, cpu time.Duration, ok bool) {
		b, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
		if err != nil {
			return "", 0, false
		}
		// Past the command's ")": state ppid … utime(14) stime cutime cstime.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
		var ticks int64
		for _, i := range []int{11, 12, 13, 14} {
			n, _ := strconv.ParseInt(f[i], 10, 64)
			ticks += n
		}
		return f[1], time.Duration(ticks) * time.Second / clockTick, true
	}
	pss := func(pid string) int64 {
		b, err := os.ReadFile(filepath.Join("/proc", pid, "smaps_rollup"))
		if err != nil {
			return 0
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Pss:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
				return kb << 10
			}
		}
		return 0
	}
	_, u.cpu, _ = stat("self")
	u.rss, _ = memory(tb)
	// The postmaster is a backend's parent.
	var backend int
	conn, err := pgx.Connect(tb.Context(), r.srv.DatabaseURL("postgres"))
	if err != nil {
		tb.Fatal(err)
	}
	err = conn.QueryRow(tb.Context(), `SELECT pg_backend_pid()`).Scan(&backend)
	postmaster, _, _ := stat(strconv.Itoa(backend))
	_ = conn.Close(context.Background())
	if err != nil || postmaster == "" {
		tb.Fatalf("the room's postmaster: %v", err)
	}
	_, u.pgCPU, _ = stat(postmaster)
	u.pgPSS = pss(postmaster)
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		if ppid, cpu, ok := stat(p.Name()); ok && ppid == postmaster {
			u.pgCPU += cpu
			u.pgPSS += pss(p.Name())
		}
	}
	return u
}

// pct is the p-th percentile of ds (nearest rank).
func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (p*len(s)+99)/100 - 1
	return s[max(0, min(i, len(s)-1))].Round(time.Millisecond)
}
