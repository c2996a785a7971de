package teadrive

import (
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// counter counts the payments its command brings back, one "p" each, and
// quits on "q".
type counter struct {
	w, n int
	last string
}

type paid struct{}

func (c counter) Init() tea.Cmd { return nil }

func (c counter) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		c.w = msg.Width
	case paid:
		c.n++
	case tea.KeyPressMsg:
		c.last = msg.String()
		switch msg.String() {
		case "p":
			return c, tea.Batch(func() tea.Msg { return paid{} }, func() tea.Msg { return nil })
		case "q":
			return c, tea.Quit
		}
	}
	return c, nil
}

func (c counter) View() tea.View {
	return tea.NewView(fmt.Sprintf("\x1b[1mwidth %d\x1b[0m   \npaid %d   \nlast %s", c.w, c.n, c.last))
}

// A key's command runs on its own and its message comes back to Update;
// the screen is plain; a screen drawn once is remembered; q quits.
func TestADriverPlaysTheRuntime(t *testing.T) {
	d := New(t, counter{}, 80, 24)
	d.Press("p", "p")
	d.WaitFor(`paid 2\n`)
	if got := d.Screen(); got != "width 80\npaid 2\nlast p\n" {
		t.Errorf("screen %q", got)
	}
	if !d.Shown(`paid 1\n`) || d.Shown(`paid 3`) {
		t.Error("the screens drawn are not remembered as they were")
	}
	for _, k := range []string{"up", "down", "enter", "esc", "c"} {
		d.Press(k)
		if d.M.last != k {
			t.Errorf("pressed %q, the model read %q", k, d.M.last)
		}
	}
	d.Press("q")
	d.WaitQuit(5 * time.Second)
}
