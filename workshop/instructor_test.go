package workshop

import (
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/screen"
	"github.com/outboxlab/outboxlab/ui"
)

// fakeClock is a room's time the test moves.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// inbox is a connected learner's program without a simulator: what the
// instructor sends it.
type inbox struct {
	mu   *sync.Mutex
	msgs *[]tea.Msg
}

func (b inbox) Init() tea.Cmd { return nil }
func (b inbox) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg.(type) {
	case openLessonMsg, pauseMsg, closingMsg, noticeMsg:
		b.mu.Lock()
		*b.msgs = append(*b.msgs, msg)
		b.mu.Unlock()
	}
	return b, nil
}
func (b inbox) View() tea.View { return tea.NewView("") }

// roomOnClock is a room without PostgreSQL or SSH, on a clock the test
// moves, with ana connected (a program that records what she is sent) and
// bea gone.
func roomOnClock(t *testing.T, lang string) (*Room, *fakeClock, func() []tea.Msg) {
	t.Helper()
	cfg := Config{SSH: "127.0.0.1:2222", Lang: lang}
	if err := cfg.check(); err != nil {
		t.Fatal(err)
	}
	course, err := lessons.Load(cfg.Lang)
	if err != nil {
		t.Fatal(err)
	}
	clock := &fakeClock{t: time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)}
	r := &Room{cfg: cfg, dir: t.TempDir(), course: course, met: newMetrics(), learners: map[string]*learner{}, changed: make(chan struct{}, 1), clock: clock.now}
	var mu sync.Mutex
	var got []tea.Msg
	p := tea.NewProgram(inbox{&mu, &got}, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithoutSignalHandler())
	ran := make(chan struct{})
	go func() { _, _ = p.Run(); close(ran) }()
	t.Cleanup(func() { p.Quit(); <-ran })
	ana := &learner{id: "ana", user: "ana", dir: t.TempDir(), active: true, program: p, joined: clock.now(), lastInput: clock.now()}
	bea := &learner{id: "bea", user: "bea", dir: t.TempDir(), joined: clock.now()}
	r.learners["ana"], r.learners["bea"] = ana, bea
	return r, clock, func() []tea.Msg { mu.Lock(); defer mu.Unlock(); return append([]tea.Msg(nil), got...) }
}

func press(t *testing.T, m instructorModel, keys ...string) instructorModel {
	t.Helper()
	for _, k := range keys {
		var msg tea.KeyPressMsg
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		case "up":
			msg = tea.KeyPressMsg{Code: tea.KeyUp}
		case "backspace":
			msg = tea.KeyPressMsg{Code: tea.KeyBackspace}
		default:
			r := []rune(k)[0]
			msg = tea.KeyPressMsg{Code: r, Text: k}
		}
		next, _ := m.Update(msg)
		m = next.(instructorModel)
	}
	return m
}

// screenText is the instructor's screen as text, its views taken now.
func screenText(m instructorModel) (instructorModel, string) {
	next, _ := m.Update(tickMsg{})
	m = next.(instructorModel)
	return m, escapes.ReplaceAllString(m.render(), "")
}

// line is the screen's line for learner id.
func line(t *testing.T, s, id string) string {
	t.Helper()
	for l := range strings.SplitSeq(s, "\n") {
		if strings.HasPrefix(l, id+" ") {
			return l
		}
	}
	t.Fatalf("no line for %s on the screen:\n%s", id, s)
	return ""
}

// TestInstructorSeesStuckAndIdleOnItsClock, in en and es: ana on a step is
// working, idle after two minutes without a key, stuck past --stuck (10
// minutes) on the step, with the time on it; a key takes the idle away,
// not the stuck; the next step clears both. bea, gone, is disconnected.
// The room's clock is the test's: no minute is waited.
func TestInstructorSeesStuckAndIdleOnItsClock(t *testing.T) {
	for _, c := range []struct{ lang, working, idle, stuck, gone, header string }{
		{"en", "working", "idle", "STUCK", "disconnected", "learner        lesson"},
		{"es", "trabajando", "inactivo", "ATASCADO", "desconectado", "participante   lección"},
	} {
		t.Run(c.lang, func(t *testing.T) {
			r, clock, _ := roomOnClock(t, c.lang)
			ana := r.learners["ana"]
			step := ui.LearnerState{Lesson: "trace", Step: 0, Steps: 2, Place: lessons.PlaceStep, Running: true, ChecksTotal: 3}
			r.report(ana, step, true)
			m := instructorModel{room: r, st: roomStyles(), w: wordsFor(c.lang), sshAddr: "127.0.0.1:2222"}

			m, s := screenText(m)
			if !strings.Contains(s, c.header) {
				t.Errorf("the columns are not in %s:\n%s", c.lang, s)
			}
			if l := line(t, s, "ana"); !strings.HasSuffix(strings.TrimSpace(l), c.working) || !strings.Contains(l, "trace") || !strings.Contains(l, "1/2") {
				t.Errorf("ana just on trace's first step: %q", l)
			}
			if l := line(t, s, "bea"); !strings.HasSuffix(strings.TrimSpace(l), c.gone) {
				t.Errorf("bea left: %q", l)
			}

			clock.add(3 * time.Minute)
			m, s = screenText(m)
			if l := line(t, s, "ana"); !strings.HasSuffix(strings.TrimSpace(l), c.idle) || !strings.Contains(l, "3m00s") {
				t.Errorf("ana three minutes without a key: %q; want %s, 3m00s on the step", l, c.idle)
			}

			clock.add(7*time.Minute + time.Second)
			m, s = screenText(m)
			if l := line(t, s, "ana"); !strings.HasSuffix(strings.TrimSpace(l), c.stuck) || !strings.Contains(l, "10m01s") {
				t.Errorf("ana 10m01s on a step (--stuck 10m): %q; want %s", l, c.stuck)
			}
			if v := r.Learners()[0]; !v.Stuck || !v.Idle {
				t.Errorf("ana's view: %+v; want stuck and idle", v)
			}

			r.report(ana, step, true) // a key: still on the step
			m, s = screenText(m)
			if l := line(t, s, "ana"); !strings.HasSuffix(strings.TrimSpace(l), c.stuck) {
				t.Errorf("a key does not unstick a step: %q", l)
			}
			if v := r.Learners()[0]; v.Idle {
				t.Errorf("ana pressed a key and is idle: %+v", v)
			}

			step.Step = 1
			r.report(ana, step, true)
			clock.add(30 * time.Second)
			_, s = screenText(m)
			if l := line(t, s, "ana"); !strings.HasSuffix(strings.TrimSpace(l), c.working) || !strings.Contains(l, "2/2") || !strings.Contains(l, "30s") {
				t.Errorf("ana on the next step for 30s: %q", l)
			}
		})
	}
}

// TestInstructorSendsAndPausesByKeys, in en and es: l on the selected
// learner sends ana to the second lesson of the course (her program gets
// it), L sends everyone connected, p with a message pauses the room (its
// learners get the message and the screen says so), p again resumes.
func TestInstructorSendsAndPausesByKeys(t *testing.T) {
	for _, c := range []struct{ lang, sendTo, pauseAsk, paused string }{
		{"en", "Send ana to:", "Pause the room with a message:", "‖ paused: \"break\""},
		{"es", "Enviar a ana a:", "Pausar la sala con un mensaje:", "‖ en pausa: \"break\""},
	} {
		t.Run(c.lang, func(t *testing.T) {
			r, _, sent := roomOnClock(t, c.lang)
			m := instructorModel{room: r, st: roomStyles(), w: wordsFor(c.lang), sshAddr: "127.0.0.1:2222"}
			m, _ = screenText(m)
			second := r.course[1].Name

			m = press(t, m, "l")
			_, s := screenText(m)
			if !strings.Contains(s, c.sendTo) || !strings.Contains(s, "▸") {
				t.Errorf("l shows no lesson picker for ana:\n%s", s)
			}
			m = press(t, m, "down", "enter")
			m, s = screenText(m)
			if !strings.Contains(s, "→ ana: 2 "+second) {
				t.Errorf("no notice of ana sent to %s:\n%s", second, s)
			}
			// L opens on the selected learner's lesson (ana's has none
			// yet: the first), not where the last picker was left.
			m = press(t, m, "L", "down", "enter", "y")
			m = press(t, m, "p")
			_, s = screenText(m)
			if !strings.Contains(s, c.pauseAsk) {
				t.Errorf("p asks for no message:\n%s", s)
			}
			m = press(t, m, "b", "r", "e", "a", "k", "enter")
			m, s = screenText(m)
			if r.Paused() != "break" || !strings.Contains(s, c.paused) {
				t.Errorf("the room paused with %q; the screen:\n%s", r.Paused(), s)
			}
			m = press(t, m, "p")
			if r.Paused() != "" {
				t.Errorf("p again left the room paused: %q", r.Paused())
			}
			want := []tea.Msg{openLessonMsg{second}, openLessonMsg{second}, pauseMsg{text: "break"}, pauseMsg{}}
			got := waitSent(t, sent, len(want))
			if len(got) != len(want) {
				t.Fatalf("ana's program got %v; want %v", got, want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("ana's program's message %d: %v; want %v", i, got[i], want[i])
				}
			}
		})
	}
}

// roomStyles are the instructor's screen's styles, as instructorScreen
// gives them.
func roomStyles() *screen.Styles {
	st := screen.Default(true)
	return &st
}
