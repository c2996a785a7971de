package workshop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	gossh "golang.org/x/crypto/ssh"
)

// TestRoomOf30 connects a room of learners at once over SSH, each with a
// pty; each presses h every 500 ms for -room.keys, timing each key to the
// frame that shows its effect; then each sends a payment and drains it (p
// D: the first step of the first lesson, real work on their databases)
// and crashes the actors (c). It measures each learner's connection
// setup, samples pg_stat_activity all along (the room's peak against the
// budget --max-learners sized, and each learner's own peak against
// perLearner), and after all hang up finds the backends, databases and
// goroutines back to where they were. The figures are logged: run with
// -v (BenchmarkRoom measures them as a benchmark).
func TestRoomOf30(t *testing.T) {
	n := *roomLearners
	r := startRoom(t, Config{MaxLearners: n})
	goroutinesBefore := runtime.NumGoroutine()
	backendsBefore := clientBackends(t, r)
	budget := maxConnections(n)
	res := loadRoom(t, r, dialLearner, n, "l", *roomKeys, nil)
	rss, hwm := memory(t)
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("key → the frame that shows its effect (h shows the step's hint, h hides it: a key every 500 ms for %s each, the showings timed): %d keys, p50 %s p95 %s max %s; %d frames never showed it within %s (goal p95 ≤ 150ms); load average %s",
		*roomKeys, len(res.keys), pct(res.keys, 50), pct(res.keys, 95), slices.Max(res.keys), res.misses, *keyLimitFlag, strings.TrimSpace(string(load)))
	t.Logf("%d learners at once on %d cores: ssh shell p50 %s p99 %s; simulator running p50 %s p99 %s (max %s)",
		n, runtime.NumCPU(), pct(res.joins, 50), pct(res.joins, 99), pct(res.runs, 50), pct(res.runs, 99), slices.Max(res.runs))
	t.Logf("PostgreSQL client backends: %d before, peak %d (budget max_connections %d = %d reserved + %d × %d per learner); a learner's peak %d (perLearner %d)",
		backendsBefore, res.peakRoom, budget, reservedConns, n, perLearner(), res.peakLearner, perLearner())
	t.Logf("process RSS %d MiB with %d connected (peak %d MiB); %d goroutines before",
		rss>>20, n, hwm>>20, goroutinesBefore)
	if res.peakRoom > budget {
		t.Errorf("the room peaked at %d backends; its budget is %d", res.peakRoom, budget)
	}
	if res.peakLearner == 0 || res.peakLearner > perLearner() {
		t.Errorf("a learner peaked at %d backends; perLearner is %d", res.peakLearner, perLearner())
	}
	// All hang up at once: a dropped connection each.
	leaveAll(t, r, res.learners, backendsBefore)
	waitGoroutines(t, goroutinesBefore)
	rss, _ = memory(t)
	t.Logf("after all left: goroutines %d (≤ %d before), RSS %d MiB", runtime.NumGoroutine(), goroutinesBefore, rss>>20)
}

// outputTail keeps what a learner's terminal was last sent.
type outputTail struct {
	mu  sync.Mutex
	buf []byte
}

func (w *outputTail) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if len(w.buf) > 1<<16 {
		w.buf = w.buf[len(w.buf)-1<<16:]
	}
	return len(p), nil
}

func (w *outputTail) String() string { w.mu.Lock(); defer w.mu.Unlock(); return string(w.buf) }

// TestRoomStopsWithLearnersConnected stops a room while -room.learners
// learners are connected over SSH: each session ends with exit status 0
// after its terminal was told to leave the alternate screen, stop
// tracking the mouse and show the cursor (as the learner's own q does),
// and the stop's time is logged (`-room.learners=40 -v`, without -race,
// for the figure).
func TestRoomStopsWithLearnersConnected(t *testing.T) {
	if testing.Short() {
		t.Skip("boots PostgreSQL")
	}
	n := *roomLearners
	report := filepath.Join(t.TempDir(), "class")
	cfg := Config{MaxLearners: n, SSH: "127.0.0.1:0", Report: report}
	fsyncOff := map[string]string{"fsync": "off"}
	cfg.PG = pg.Options{DataDir: pgtest.SeededDataDir(t, fsyncOff), Settings: fsyncOff}
	if err := cfg.check(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- r.serve(ctx) }()

	learners := make([]*loadLearner, n)
	outs := make([]*outputTail, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = &outputTail{}
			l, err := dialLearner(r, fmt.Sprintf("s%02d", i), outs[i])
			learners[i] = l
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// What the room sends from now on is what the stop sends.
	for _, o := range outs {
		o.mu.Lock()
		o.buf = nil
		o.mu.Unlock()
	}
	start := time.Now()
	cancel()
	if err := <-served; err != nil {
		t.Fatalf("room: %v", err)
	}
	took := time.Since(start)
	for i, l := range learners {
		<-l.ended
		err := l.waitErr
		var exit *gossh.ExitError
		if err != nil && (!errors.As(err, &exit) || exit.ExitStatus() != 0) {
			t.Errorf("%s: the session ended with %v, want exit status 0", l.id, err)
		}
		out := outs[i].String()
		for _, seq := range []struct{ what, seq string }{{"leave the alternate screen", "\x1b[?1049l"}, {"show the cursor", "\x1b[?25h"}, {"stop tracking the mouse", "\x1b[?1002l"}} {
			if !strings.Contains(out, seq.seq) {
				t.Errorf("%s: the room's stop did not %s (%q); it sent %q", l.id, seq.what, seq.seq, out)
			}
		}
	}
	// --report: the room's report, written as it stopped, names them all.
	b, err := os.ReadFile(report + ".json")
	if err != nil {
		t.Fatalf("--report: %v", err)
	}
	var lines []ReportLine
	if err := json.Unmarshal(b, &lines); err != nil || len(lines) != n {
		t.Errorf("--report holds %d learners (%v), want %d", len(lines), err, n)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("the room stopped with %d learners connected in %s (their programs quit, sessions ended, databases and roles dropped, PostgreSQL stopped); load average %s", n, took.Round(time.Millisecond), strings.TrimSpace(string(load)))
}
