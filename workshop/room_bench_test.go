package workshop

import (
	"flag"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
	"github.com/outboxlab/outboxlab/internal/testrun"
)

// benchLearners is BenchmarkRoom's room: 40, the --max-learners default.
var benchLearners = flag.Int("bench.learners", DefaultMaxLearners, "learners BenchmarkRoom lets in at once")

// benchKeys is how long BenchmarkRoom's learners press a key every 500 ms.
var benchKeys = flag.Duration("bench.keys", 30*time.Second, "how long BenchmarkRoom's learners press a key every 500 ms")

// BenchmarkRoom is a room of -bench.learners (40) through each door, all
// let in at once, each pressing h every 500 ms for -bench.keys (showing
// and hiding the first step's hint; each showing timed to the first frame
// that has it), the instructor watching the first learner's screen on a
// terminal of their own. Then each passes the step (p D) and crashes the
// actors (c). An iteration is a whole room, PostgreSQL booted included:
// run it with -benchtime 1x, without -race, several times (-count 3)
// for a spread:
//
//	go test -run '^$' -bench Room -benchtime 1x -count 3 ./workshop/
//
// It reports, per door: key → frame p50/p95/max; the watch's delay from
// the watched learner's key to the change in their frame as the room
// keeps it (Room.Frame, what the watch view reads) and to its showing on
// the instructor's terminal (through a terminal emulator); the join (dial
// → simulator running) p95; and what each learner costs the host while
// pressing: the room's resident memory, PostgreSQL's proportional set
// and its client backends, per learner, and CPU (the room's and
// PostgreSQL's) in percent of one core; and the room's stop with every
// learner still connected.
func BenchmarkRoom(b *testing.B) {
	for _, door := range []struct {
		name string
		dial loadDoor
		cfg  Config
	}{
		{"ssh", dialLearner, Config{}},
		{"web", dialWebLearner, Config{SSH: noSSH, Web: "127.0.0.1:0"}},
	} {
		b.Run("door="+door.name, func(b *testing.B) {
			for range b.N {
				benchRoom(b, door.dial, door.cfg)
			}
		})
	}
}

func benchRoom(b *testing.B, dial loadDoor, cfg Config) {
	n := *benchLearners
	// Every learner comes from 127.0.0.1, as a room behind a NAT does.
	cfg.MaxLearners, cfg.WebPerAddress = n, n
	// The room makes every seat's databases before the class arrives, as
	// an instructor's room does when started ahead of it.
	cfg.SpareSeats = n
	r, stop := startRoomStop(b, cfg)
	defer stop()
	waitSpares(b, r)
	// What an earlier iteration's room left on the heap is given back to
	// the system: the memory measured is this room's.
	debug.FreeOSMemory()
	backendsBefore := clientBackends(b, r)
	before := measureHost(b, r)
	var during [2]hostUse
	var frames, screens delays
	var stopWatch func()
	var measured sync.WaitGroup
	res := loadRoom(b, r, dial, n, "b", *benchKeys, func(ls []*loadLearner) {
		during[0] = measureHost(b, r)
		watched := ls[0]
		var done func()
		watched.pressed, done = watchDelays(b, r, watched.id, &frames, &screens)
		stopWatch = done
		// The learners press keys from now for -bench.keys: the host's
		// use is taken over that window, its last half-second left to the
		// keys still in flight.
		measured.Add(1)
		go func() {
			defer measured.Done()
			time.Sleep(*benchKeys - 500*time.Millisecond) // a measurement window: the host's use taken once the keys have run
			during[1] = measureHost(b, r)
		}()
	})
	measured.Wait()
	stopWatch()
	b.StopTimer()
	window := during[1].at.Sub(during[0].at)
	cpu := (during[1].cpu - during[0].cpu + during[1].pgCPU - during[0].pgCPU).Seconds() / window.Seconds()
	perN := func(v float64) float64 { return v / float64(n) }
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(pct(res.keys, 50)), "key-p50-ms")
	b.ReportMetric(ms(pct(res.keys, 95)), "key-p95-ms")
	b.ReportMetric(ms(pct(res.keys, 100)), "key-max-ms")
	b.ReportMetric(float64(res.misses), "key-misses")
	if len(frames.ds) > 0 && len(screens.ds) > 0 {
		b.ReportMetric(ms(pct(frames.ds, 50)), "watch-frame-p50-ms")
		b.ReportMetric(ms(pct(frames.ds, 95)), "watch-frame-p95-ms")
		b.ReportMetric(ms(pct(screens.ds, 50)), "watch-screen-p50-ms")
		b.ReportMetric(ms(pct(screens.ds, 95)), "watch-screen-p95-ms")
	} else {
		b.Errorf("the watch saw none of the watched learner's keys: %d in the frame, %d on the instructor's screen", len(frames.ds), len(screens.ds))
	}
	b.ReportMetric(pct(res.runs, 95).Seconds(), "join-p95-s")
	b.ReportMetric(perN(float64(during[1].rss-before.rss))/(1<<20), "rss-MiB/learner")
	b.ReportMetric(perN(float64(during[1].pgPSS-before.pgPSS))/(1<<20), "pg-pss-MiB/learner")
	b.ReportMetric(perN(float64(res.peakRoom-backendsBefore)), "pg-conns/learner")
	b.ReportMetric(100*perN(cpu), "cpu-%core/learner")
	b.ReportMetric(perN(float64(res.received)/res.pressing.Seconds()), "B/s/learner")
	load, _ := os.ReadFile("/proc/loadavg")
	b.Logf("%d learners: key → frame %d keys, %d misses; watch: %d keys timed; a learner's peak backends %d; load average %s",
		n, len(res.keys), res.misses, len(frames.ds), res.peakLearner, strings.TrimSpace(string(load)))
	// The class ends with everyone still connected, as the instructor's q
	// and y end it: the time until the room has closed every session and
	// stopped serving.
	began := time.Now()
	stop()
	b.ReportMetric(time.Since(began).Seconds(), "stop-s")
}

// delays are the watch's timings, appended from its watcher's goroutine.
type delays struct {
	mu sync.Mutex
	ds []time.Duration
}

func (d *delays) add(v time.Duration) { d.mu.Lock(); d.ds = append(d.ds, v); d.mu.Unlock() }

// watchDelays is the instructor watching learner id as at the room's
// terminal: the instructor's screen (its own program, w pressed on the
// learner) drawn on a terminal emulator of 160×50. The function it
// returns is told of each of the learner's keys that shows the hint and
// times it to the hint in the learner's frame as the room keeps it
// (frames) and on the instructor's screen (screens); done stops watching.
func watchDelays(tb testing.TB, r *Room, id string, frames, screens *delays) (pressed func(time.Time), done func()) {
	tb.Helper()
	const w, h = 160, 50
	emu := vt.NewEmulator(w, h)
	go func() { _, _ = io.Copy(io.Discard, emu) }() // what the terminal answers
	scr := &screenWatch{emu: emu}
	in, keys := io.Pipe()
	m := instructorModel{room: r, st: roomStyles(), w: wordsFor("en"), cancel: func() {}, selID: id, width: w, height: h}
	m = m.refresh()
	p := tea.NewProgram(m, tea.WithInput(in), tea.WithOutput(scr), tea.WithWindowSize(w, h), tea.WithoutSignalHandler(),
		tea.WithEnvironment([]string{"TERM=xterm-256color"}))
	ran := make(chan struct{})
	go func() { _, _ = p.Run(); close(ran) }()
	_, _ = keys.Write([]byte("w"))
	testrun.Eventually(tb, 10*time.Second, "w on "+id+": the room says they are watched", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.learners[id].watched
	})
	stop := make(chan struct{})
	var polling sync.WaitGroup
	pressed = func(at time.Time) {
		scr.await(at, screens)
		polling.Add(1)
		go func() {
			// The frame is polled: the room keeps it for the watch to read
			// when it draws (every 100 ms), and tells no one it changed.
			defer polling.Done()
			gone := !strings.Contains(ansi.Strip(r.Frame(id)), hintShown)
			for limit := at.Add(*keyLimitFlag); time.Now().Before(limit); time.Sleep(2 * time.Millisecond) { // a measurement: the frame asked every 2 ms, as fine as it is timed
				shown := strings.Contains(ansi.Strip(r.Frame(id)), hintShown)
				if shown && gone {
					frames.add(time.Since(at))
					return
				}
				gone = gone || !shown
				select {
				case <-stop:
					return
				default:
				}
			}
		}()
	}
	return pressed, func() {
		close(stop)
		polling.Wait()
		p.Quit()
		_ = keys.Close()
		<-ran
	}
}

// screenWatch is the instructor's terminal: it times a key to the first
// screen that shows the hint.
type screenWatch struct {
	mu      sync.Mutex
	emu     *vt.Emulator
	pressed time.Time
	into    *delays
	// shown: the hint was still on the screen when the key was pressed
	// (the key before it that hid it not drawn yet): the one timed is the
	// showing after it goes.
	shown bool
}

func (s *screenWatch) await(at time.Time, into *delays) {
	s.mu.Lock()
	s.pressed, s.into = at, into
	s.shown = strings.Contains(s.emu.String(), hintShown)
	s.mu.Unlock()
}

func (s *screenWatch) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = s.emu.Write(p)
	if s.into == nil {
		return len(p), nil
	}
	switch shown := strings.Contains(s.emu.String(), hintShown); {
	case shown && !s.shown:
		s.into.add(time.Since(s.pressed))
		s.into = nil
	case !shown:
		s.shown = false
	}
	return len(p), nil
}
