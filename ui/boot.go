package ui

import (
	"strings"
	"time"

	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/screen"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/outboxlab/outboxlab/pg"
)

// bootProgressMsg is one boot step beginning.
type bootProgressMsg struct{ p pg.Progress }

// bootDoneMsg is pg.Boot's result.
type bootDoneMsg struct {
	srv *pg.Server
	err error
}

// bootPane is the first screen: PostgreSQL's boot steps with a spinner
// while the server starts, or the boot error as doctor prints it.
type bootPane struct {
	st      *Styles
	w, h    int
	spin    spinner.Model
	started time.Time
	steps   []pg.Progress
	err     error
	done    bool
}

func newBootPane(st *Styles) bootPane {
	return bootPane{st: st, spin: spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(st.Spinner)), started: time.Now()}
}

func (b *bootPane) SetSize(w, h int)         { b.w, b.h = w, h }
func (b bootPane) ShortHelp() []key.Binding  { return nil }
func (b bootPane) FullHelp() [][]key.Binding { return nil }

func (b bootPane) Update(msg tea.Msg) (bootPane, tea.Cmd) {
	switch msg := msg.(type) {
	case spinner.TickMsg:
		if b.done || b.err != nil {
			return b, nil // stop spinning: no busy redraw once booted
		}
		var cmd tea.Cmd
		b.spin, cmd = b.spin.Update(msg)
		return b, cmd
	case bootProgressMsg:
		b.steps = append(b.steps, msg.p)
		if msg.p.Step == pg.BootReady {
			b.done = true
		}
	case bootDoneMsg:
		b.err = msg.err
		b.done = msg.err == nil
	}
	return b, nil
}

func (b bootPane) View() string {
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

func dim(st *Styles, s string) string {
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
