package workshop

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// webKeys are a web learner's keys: one binary message each.
type webKeys struct{ c *websocket.Conn }

func (k webKeys) Write(p []byte) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := k.c.Write(ctx, websocket.MessageBinary, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// webLoadLearner is a load test's learner through the web door: the SSH
// load test's learner (its keys, its timed screen) on a WebSocket, and
// the bytes the room sent it.
type webLoadLearner struct {
	*loadLearner
	c     *websocket.Conn
	bytes atomic.Int64
}

// dialWebLearner joins as id on a 120×40 terminal and waits for their
// simulator to run.
func dialWebLearner(r *Room, id string) (*webLoadLearner, error) {
	start := time.Now()
	l := &webLoadLearner{loadLearner: &loadLearner{id: id, screen: &keyWatch{seen: make(chan time.Duration, 1)}}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+r.WebAddr()+"/join", nil)
	if err != nil {
		return l, fmt.Errorf("%s: %w", id, err)
	}
	c.SetReadLimit(1 << 20)
	l.c, l.in = c, webKeys{c}
	hello, _ := json.Marshal(webHello{Name: id, Lang: "en", Cols: 120, Rows: 40})
	if err := c.Write(ctx, websocket.MessageText, hello); err != nil {
		return l, fmt.Errorf("%s: hello: %w", id, err)
	}
	l.shell = time.Since(start)
	go func() {
		for {
			_, b, err := c.Read(context.Background())
			if err != nil {
				return
			}
			l.bytes.Add(int64(len(b)))
			_, _ = l.screen.Write(b)
		}
	}()
	if err := l.until(r, "running", time.Minute, func(v LearnerView) bool { return v.Ready && v.Stage == "step" }); err != nil {
		return l, err
	}
	l.running = time.Since(start)
	return l, nil
}

// TestWebRoomOf30 is TestRoomOf30 through the web door: -room.learners
// learners join over WebSockets at once (Go clients), each presses h every
// 500 ms for -room.keys, timing each key to the frame that shows its
// effect, then passes the first step (p D) and crashes the actors (c).
// It logs join times, key → frame, bytes per second per learner while
// pressing keys, PostgreSQL backends and the process's memory; run it
// beside TestRoomOf30 with the same flags for the SSH door's figures
// (-run 'TestRoomOf30|TestWebRoomOf30' -room.learners=30 -room.keys=60s
// -room.limit=2s -v, without -race).
func TestWebRoomOf30(t *testing.T) {
	n := *roomLearners
	// Every learner comes from 127.0.0.1, as a room behind a NAT does.
	r := startRoom(t, Config{MaxLearners: n, Web: "127.0.0.1:0", WebPerAddress: n})
	time.Sleep(time.Second)
	goroutinesBefore := runtime.NumGoroutine()
	rssBefore, _ := memory(t)
	sample := sampleBackends(t, r)
	learners := make([]*webLoadLearner, n)
	errs := make(chan error, n)
	var pressing time.Duration
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := dialWebLearner(r, fmt.Sprintf("w%02d", i))
			learners[i] = l
			if err == nil {
				before, start := l.bytes.Load(), time.Now()
				err = l.pressKeys(*roomKeys)
				l.bytes.Store(l.bytes.Load() - before)
				mu.Lock()
				pressing = max(pressing, time.Since(start))
				mu.Unlock()
			}
			if err == nil {
				err = l.work(r)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	peakRoom, peakLearner := sample()
	rss, hwm := memory(t)
	if t.Failed() {
		return
	}
	var joins, runs, keys []time.Duration
	var sent int64
	misses := 0
	for _, l := range learners {
		joins, runs = append(joins, l.shell), append(runs, l.running)
		keys = append(keys, l.keys...)
		misses += l.misses
		sent += l.bytes.Load()
		if got := count(t, r, "postgres", `SELECT count(*) FROM pg_database WHERE datname = $1`, "ws_"+l.id+"_outbox"); got != 1 {
			t.Errorf("%s has no outbox database", l.id)
		}
	}
	if len(keys) == 0 {
		t.Fatalf("no key's effect showed within %s (%d keys)", *keyLimitFlag, misses)
	}
	if misses > len(keys)/10 {
		t.Errorf("%d of %d keys' effects never showed within %s", misses, len(keys)+misses, *keyLimitFlag)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("web door, %d learners on %d cores: key → the frame that shows its effect: %d keys, p50 %s p95 %s max %s; %d never within %s (goal p95 ≤ 150ms); load average %s",
		n, runtime.NumCPU(), len(keys), pct(keys, 50), pct(keys, 95), slices.Max(keys), misses, *keyLimitFlag, strings.TrimSpace(string(load)))
	t.Logf("web door: WebSocket open and hello p50 %s p99 %s; simulator running p50 %s p99 %s (max %s)",
		pct(joins, 50), pct(joins, 99), pct(runs, 50), pct(runs, 99), slices.Max(runs))
	t.Logf("web door: %.0f bytes/s per learner to the page while pressing a key every 500 ms (%d bytes in all over %s)",
		float64(sent)/float64(n)/pressing.Seconds(), sent, pressing.Round(time.Second))
	// RSS per learner means something in a process of its own: run alone,
	// not after TestRoomOf30 (the heap it grew is not given back).
	t.Logf("web door: PostgreSQL client backends peak %d (a learner's peak %d, perLearner %d); RSS %d MiB before, %d MiB with %d connected (peak %d MiB): %.1f MiB per learner",
		peakRoom, peakLearner, perLearner(), rssBefore>>20, rss>>20, n, hwm>>20, float64(rss-rssBefore)/float64(n)/(1<<20))
	for _, l := range learners {
		l.c.CloseNow()
	}
	for _, l := range learners {
		waitGone(t, r, l.id)
	}
	if got := count(t, r, "postgres", `SELECT count(*) FROM pg_database WHERE datname LIKE 'ws\_%'`); got != 0 {
		t.Errorf("%d learners' databases left after all left", got)
	}
	waitGoroutines(t, goroutinesBefore)
}
