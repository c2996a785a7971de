package workshop

import (
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestWebRoomOf30 is TestRoomOf30 through the web door: -room.learners
// learners join over WebSockets at once (Go clients, as the page), each
// presses h every 500 ms for -room.keys, timing each key to the frame
// that shows its effect, then passes the first step (p D) and crashes the
// actors (c). It logs join times, key → frame, bytes per second per
// learner while pressing keys, PostgreSQL backends and the process's
// memory; run it beside TestRoomOf30 with the same flags for the SSH
// door's figures (-run 'TestRoomOf30|TestWebRoomOf30' -room.learners=30
// -room.keys=60s -room.limit=2s -v, without -race).
func TestWebRoomOf30(t *testing.T) {
	n := *roomLearners
	// Every learner comes from 127.0.0.1, as a room behind a NAT does.
	r := startRoom(t, Config{MaxLearners: n, Web: "127.0.0.1:0", WebPerAddress: n})
	goroutinesBefore := runtime.NumGoroutine()
	backendsBefore := clientBackends(t, r)
	rssBefore, _ := memory(t)
	res := loadRoom(t, r, dialWebLearner, n, "w", *roomKeys, nil)
	rss, hwm := memory(t)
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("web door, %d learners on %d cores: key → the frame that shows its effect: %d keys, p50 %s p95 %s max %s; %d never within %s (goal p95 ≤ 150ms); load average %s",
		n, runtime.NumCPU(), len(res.keys), pct(res.keys, 50), pct(res.keys, 95), slices.Max(res.keys), res.misses, *keyLimitFlag, strings.TrimSpace(string(load)))
	t.Logf("web door: WebSocket open and hello p50 %s p99 %s; simulator running p50 %s p99 %s (max %s)",
		pct(res.joins, 50), pct(res.joins, 99), pct(res.runs, 50), pct(res.runs, 99), slices.Max(res.runs))
	t.Logf("web door: %.0f bytes/s per learner to the page while pressing a key every 500 ms (%d bytes in all over %s)",
		float64(res.received)/float64(n)/res.pressing.Seconds(), res.received, res.pressing.Round(time.Second))
	// RSS per learner means something in a process of its own: run alone,
	// not after TestRoomOf30 (the heap it grew is not given back).
	t.Logf("web door: PostgreSQL client backends peak %d (a learner's peak %d, perLearner %d); RSS %d MiB before, %d MiB with %d connected (peak %d MiB): %.1f MiB per learner",
		res.peakRoom, res.peakLearner, perLearner(), rssBefore>>20, rss>>20, n, hwm>>20, float64(rss-rssBefore)/float64(n)/(1<<20))
	leaveAll(t, r, res.learners, backendsBefore)
	waitGoroutines(t, goroutinesBefore)
}
