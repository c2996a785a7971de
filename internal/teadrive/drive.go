package teadrive

import (
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Driver plays the Bubble Tea runtime for a model of type M.
type Driver[M tea.Model] struct {
	M    M // the model as Update last returned it
	t    testing.TB
	msgs chan tea.Msg // what the commands returned, not yet handled
	seen []string     // every screen drawn, for what showed only for a moment
	// keep says every screen drawn is kept (for Shown); a screen that
	// costs a whole frame to draw, handling thousands of messages, can do
	// without (Forget).
	keep bool
	// started counts the commands run, quit says a tea.QuitMsg came.
	started int
	quit    bool
}

// New opens m at a w×h terminal, as the runtime does: the window's size,
// then Init's command.
func New[M tea.Model](t testing.TB, m M, w, h int) *Driver[M] {
	d := &Driver[M]{M: m, t: t, msgs: make(chan tea.Msg, 64), keep: true}
	d.Handle(tea.WindowSizeMsg{Width: w, Height: h})
	d.exec(d.M.Init())
	return d
}

// Forget keeps no more screens: Shown then sees none drawn after it.
func (d *Driver[M]) Forget() { d.keep, d.seen = false, nil }

// Started is how many commands have run so far.
func (d *Driver[M]) Started() int { return d.started }

// Quit says a tea.QuitMsg came, where the runtime would have ended.
func (d *Driver[M]) Quit() bool { return d.quit }

// Pending is how many messages wait to be handled.
func (d *Driver[M]) Pending() int { return len(d.msgs) }

// Run runs cmd on its own goroutine and queues what it returns, as the
// runtime runs a command.
func (d *Driver[M]) Run(cmd tea.Cmd) { d.exec(cmd) }

// Send queues msg as if a command had returned it (Program.Send). It may
// be called from any goroutine.
func (d *Driver[M]) Send(msg tea.Msg) { d.msgs <- msg }

// exec runs cmd on its own goroutine and queues what it returns.
func (d *Driver[M]) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	d.started++
	go func() {
		if msg := cmd(); msg != nil {
			d.msgs <- msg
		}
	}()
}

// Handle gives msg to Update (a batch's commands each run), keeps the
// screen drawn, and runs the command Update returned.
func (d *Driver[M]) Handle(msg tea.Msg) {
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			d.exec(c)
		}
		return
	case tea.QuitMsg:
		// Not Update's: the runtime ends here.
		d.quit = true
		return
	}
	next, cmd := d.M.Update(msg)
	d.M = next.(M)
	if d.keep {
		d.seen = append(d.seen, d.Screen())
	}
	d.exec(cmd)
}

// Until handles messages until cond holds of the model, or fails the test
// after within, saying what it waited for and the screen.
func (d *Driver[M]) Until(within time.Duration, what string, cond func(M) bool) {
	d.t.Helper()
	deadline := time.After(within)
	for !cond(d.M) {
		select {
		case msg := <-d.msgs:
			d.Handle(msg)
		case <-deadline:
			d.t.Fatalf("timed out waiting for %s; screen:\n%s", what, d.Screen())
		}
	}
}

// HandleNext handles the next message if one comes within d; it says
// whether one came.
func (d *Driver[M]) HandleNext(within time.Duration) bool {
	select {
	case msg := <-d.msgs:
		d.Handle(msg)
		return true
	case <-time.After(within):
		return false
	}
}

// Press handles each key as a terminal sends it (KeyPress).
func (d *Driver[M]) Press(keys ...string) {
	for _, k := range keys {
		d.Handle(KeyPress(k))
	}
}

// Screen is the screen drawn now, plain (Plain).
func (d *Driver[M]) Screen() string { return Plain(d.M.View().Content) }

// WaitFor handles messages until the screen matches re, or fails the
// test after 20 s.
func (d *Driver[M]) WaitFor(re string) {
	d.t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.After(20 * time.Second)
	for !rx.MatchString(d.Screen()) {
		select {
		case msg := <-d.msgs:
			d.Handle(msg)
		case <-deadline:
			d.t.Fatalf("the screen never matched %q:\n%s", re, d.Screen())
		}
	}
}

// WaitQuit handles messages until one is tea.QuitMsg (not handed to
// Update, as the runtime ends there), or fails the test after within.
func (d *Driver[M]) WaitQuit(within time.Duration) {
	d.t.Helper()
	deadline := time.After(within)
	for !d.quit {
		select {
		case msg := <-d.msgs:
			d.Handle(msg)
		case <-deadline:
			d.t.Fatalf("no quit within %s", within)
		}
	}
}

// Shown reports whether any screen drawn so far matched re.
func (d *Driver[M]) Shown(re string) bool {
	rx := regexp.MustCompile(re)
	for _, s := range d.seen {
		if rx.MatchString(s) {
			return true
		}
	}
	return false
}

// Plain is a view as a terminal's text: its ANSI stripped, each line's
// trailing spaces trimmed, and a last newline.
func Plain(view string) string {
	lines := strings.Split(ansi.Strip(view), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// KeyPress builds the message a terminal sends for a key, as named by
// key.Binding (e.g. "up", "esc", "c").
func KeyPress(k string) tea.KeyPressMsg {
	switch k {
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}
