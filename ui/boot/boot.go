package boot

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/screen"
)

// ProgressMsg is one boot step beginning.
type ProgressMsg struct{ Progress pg.Progress }

// DoneMsg is pg.Boot's result.
type DoneMsg struct {
	Srv *pg.Server
	Err error
}

// Pane is the first screen: PostgreSQL's boot steps with a spinner
// while the server starts, or the boot error as doctor prints it.
type Pane struct {
	st       *screen.Styles
	w, h     int
	spin     spinner.Model
	started  time.Time
	progress chan pg.Progress // the boot's steps, as pg.Boot begins each
	steps    []pg.Progress
	err      error
	done     bool
}

// New is the pane before the boot begins.
func New(st *screen.Styles) Pane {
	return Pane{st: st, spin: spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(st.Spinner)), started: time.Now(),
		progress: make(chan pg.Progress, 8)}
}

// Progress is where the boot sends each step as it begins, and closes
// when pg.Boot returns.
func (b Pane) Progress() chan<- pg.Progress { return b.progress }

// Init spins and waits for the boot's first step.
func (b Pane) Init() tea.Cmd { return tea.Batch(b.spin.Tick, b.waitProgress()) }

// waitProgress returns the boot's next step; re-armed after each.
func (b Pane) waitProgress() tea.Cmd {
	progress := b.progress
	return func() tea.Msg {
		p, ok := <-progress
		if !ok {
			return nil
		}
		return ProgressMsg{p}
	}
}

// Restyle takes the spinner's style again, after the styles changed (the
// terminal said its background).
func (b *Pane) Restyle() { b.spin.Style = b.st.Spinner }

// SetSize is the room the screen gives the pane.
func (b *Pane) SetSize(w, h int) { b.w, b.h = w, h }

// ShortHelp: the boot screen has no keys of its own.
func (b Pane) ShortHelp() []key.Binding { return nil }

// FullHelp: the boot screen has no keys of its own.
func (b Pane) FullHelp() [][]key.Binding { return nil }

// Update spins, adds each step as it begins (and waits for the next), and
// takes the boot's result.
func (b Pane) Update(msg tea.Msg) (Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case spinner.TickMsg:
		if b.done || b.err != nil {
			return b, nil // stop spinning: no busy redraw once booted
		}
		var cmd tea.Cmd
		b.spin, cmd = b.spin.Update(msg)
		return b, cmd
	case ProgressMsg:
		b.steps = append(b.steps, msg.Progress)
		if msg.Progress.Step == pg.BootReady {
			b.done = true
		}
		return b, b.waitProgress()
	case DoneMsg:
		b.err = msg.Err
		b.done = msg.Err == nil
	}
	return b, nil
}

// View draws the steps so far, or the boot's error and what to do.
func (b Pane) View() string {
	st, w8 := b.st.Boot, b.st.Words
	lines := []string{
		st.Title.Render("outboxlab") + b.st.App.Muted.Render(" · "+w8.T("the transactional outbox, relay and inbox, on a real PostgreSQL")),
		"",
	}
	if len(b.steps) == 0 && b.err == nil {
		lines = append(lines, b.spin.View()+" "+st.Current.Render(w8.T("booting PostgreSQL…")))
	}
	for i, p := range b.steps {
		last := i == len(b.steps)-1
		text := w8.Word(p.Step.String())
		if p.Detail != "" {
			text += "  " + b.st.App.Muted.Render(p.Detail)
		}
		switch {
		case last && b.err != nil:
			lines = append(lines, st.Error.Render("✗ ")+text)
		case last && !b.done:
			lines = append(lines, b.spin.View()+" "+st.Current.Render(w8.Word(p.Step.String()))+dim(b.st, p.Detail))
		default:
			lines = append(lines, st.Done.Render("✓ ")+text)
		}
	}
	if b.err != nil {
		lines = append(lines, "", st.Error.Render(w8.T("PostgreSQL did not start:")))
		w := max(20, b.w-4)
		for _, l := range strings.Split(sayBootError(w8, b.err), "\n") {
			for _, wl := range strings.Split(lipgloss.Wrap(l, w, " /"), "\n") {
				lines = append(lines, "  "+wl)
			}
		}
		lines = append(lines, "", st.Hint.Render(w8.T("`outboxlab doctor` prints the same; --pg-bin, --data-dir or --database-url choose another server. q quits.")))
	} else if !b.done {
		lines = append(lines, "", st.Hint.Render(w8.T("a cold boot runs initdb once; later boots reuse the cluster · q quits")))
	}
	return screen.Block(strings.Join(lines, "\n"), b.w, b.h)
}

// dim is a step's detail, muted, after its words.
func dim(st *screen.Styles, s string) string {
	if s == "" {
		return ""
	}
	return "  " + st.App.Muted.Render(s)
}

// sayBootError is a boot failure in the learner's language where pg keeps
// its words (pg.Said), else as pg wrote it.
func sayBootError(w *catalog.Printer, err error) string {
	format, args, ok := pg.Said(err)
	if !ok {
		return err.Error()
	}
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = a
		if e, isErr := a.(error); isErr {
			if _, _, said := pg.Said(e); said {
				out[i] = sayBootError(w, e)
			}
		}
	}
	return w.Say(format, out)
}
