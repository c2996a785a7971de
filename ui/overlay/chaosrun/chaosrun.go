package chaosrun

import (
	"context"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/progress"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/chaos"
	"github.com/outboxlab/outboxlab/screen"
)

// keyMap is the chaos run's one key: esc stops a run, or closes its table.
type keyMap struct {
	Close key.Binding
}

func defaultKeyMap(w *catalog.Printer) keyMap {
	return keyMap{Close: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", w.T("stop or close")))}
}

func (k keyMap) ShortHelp() []key.Binding  { return []key.Binding{k.Close} }
func (k keyMap) FullHelp() [][]key.Binding { return [][]key.Binding{{k.Close}} }

// ProgressMsg is one schedule's end: Done schedules have run, the last
// with outcome Out. ID is the run's, as New was given it.
type ProgressMsg struct {
	ID   int
	Done int
	Out  chaos.Outcome
}

// DoneMsg is the run's end: its table, or why there is none.
type DoneMsg struct {
	ID     int
	Report chaos.Report
	Err    error
}

// CloseMsg closes the chaos pane.
type CloseMsg struct{}

// Pane shows a chaos run: a progress bar with the runs per second and
// what broke so far while it runs, then its table, in the screen's
// language. Esc stops a run (the table then counts what ran) or closes it.
type Pane struct {
	st     *screen.Styles
	keys   keyMap
	w, h   int
	id     int
	total  int
	mode   string
	start  time.Time
	bar    progress.Model
	cancel context.CancelFunc
	events chan tea.Msg

	done, broke, lost, phantom int
	report                     *chaos.Report
	err                        error
}

// New is the pane of run id, total schedules in mode; cancel stops the
// run (esc while it runs) and is called once it is over.
func New(st *screen.Styles, id, total int, mode string, cancel context.CancelFunc) Pane {
	return Pane{
		st: st, keys: defaultKeyMap(st.Words), id: id, total: total, mode: mode, start: time.Now(), cancel: cancel,
		bar: progress.New(progress.WithDefaultBlend(), progress.WithoutPercentage()), events: make(chan tea.Msg, 16),
	}
}

// SetSize is the body's room, the bar as wide as fits.
func (p *Pane) SetSize(w, h int) {
	p.w, p.h = w, h
	p.bar.SetWidth(max(10, min(60, w-4)))
}

// ShortHelp is the chaos run's key, the only one that works while it is
// open.
func (p Pane) ShortHelp() []key.Binding { return p.keys.ShortHelp() }

// FullHelp is the chaos run's key.
func (p Pane) FullHelp() [][]key.Binding { return p.keys.FullHelp() }

// ID is the run's, as New was given it: messages of an older run are not
// this one's.
func (p Pane) ID() int { return p.id }

// Running says the run has not ended: no table yet, and no error.
func (p Pane) Running() bool { return p.report == nil && p.err == nil }

// Report is the run's table, nil until it ends with one.
func (p Pane) Report() *chaos.Report { return p.report }

// Err is why the run ended without a table.
func (p Pane) Err() error { return p.err }

// Events is where the run sends its ProgressMsg and DoneMsg, for Wait to
// read one at a time.
func (p Pane) Events() chan<- tea.Msg { return p.events }

// Wait reads the run's next message.
func (p Pane) Wait() tea.Cmd {
	events := p.events
	return func() tea.Msg { return <-events }
}

// Update counts each schedule's end, takes the table, and stops or closes
// on esc (CloseMsg).
func (p Pane) Update(msg tea.Msg) (Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case ProgressMsg:
		if msg.ID != p.id {
			return p, nil
		}
		p.done = msg.Done
		if msg.Out.Violated() {
			p.broke++
		}
		if msg.Out.NaiveLost > 0 {
			p.lost++
		}
		if msg.Out.NaivePhantom > 0 {
			p.phantom++
		}
		return p, p.Wait()
	case DoneMsg:
		if msg.ID != p.id {
			return p, nil
		}
		p.err = msg.Err
		if msg.Err == nil {
			p.report = &msg.Report
		}
		p.cancel() // the run is over: its context goes
		return p, nil
	case tea.KeyPressMsg:
		if key.Matches(msg, p.keys.Close) {
			if p.Running() {
				p.cancel() // the run ends with what ran: its table follows
				return p, nil
			}
			return p, func() tea.Msg { return CloseMsg{} }
		}
	}
	return p, nil
}

// View draws the progress while the run goes, then its table.
func (p Pane) View() string {
	w := p.st.Words
	detail := w.T("%d schedules in %s mode", p.total, p.mode)
	lines := []string{screen.PaneTitle(p.st, true, w.T("Chaos run"), detail, p.w), ""}
	done := p.done
	if p.report != nil {
		done = p.report.Runs
	}
	rate := float64(done) / max(time.Since(p.start).Seconds(), 0.001)
	if p.report != nil {
		rate = p.report.RunsPerSecond
	}
	lines = append(lines,
		"  "+p.bar.ViewAs(float64(done)/float64(max(1, p.total))),
		"  "+w.T("%d/%d schedules · %.1f/s · outbox broke %d · naive lost in %d, phantoms in %d", done, p.total, rate, p.broke, p.lost, p.phantom), "")
	switch {
	case p.err != nil:
		lines = append(lines, "  "+p.st.App.Error.Render(screen.OneLine(p.err.Error())))
	case p.report != nil:
		lines = append(lines, p.table(*p.report)...)
	default:
		lines = append(lines, "  "+p.st.App.Muted.Render(w.T("each schedule plays on databases of its own, drains and is checked by the oracle; esc stops")))
	}
	// The table the lesson asks the learner to read wraps to the width,
	// each line's continuation four cells in: never cut mid-word.
	var wrapped []string
	for i, l := range lines {
		if i == 0 || ansi.StringWidth(l) <= p.w {
			wrapped = append(wrapped, l)
			continue
		}
		for _, piece := range screen.WrapWhole(strings.TrimLeft(l, " "), p.w-2, 2) {
			wrapped = append(wrapped, "  "+piece)
		}
	}
	return screen.Block(strings.Join(screen.FitLines(wrapped, p.w, p.h), "\n"), p.w, p.h)
}

// table is the run's table as `outboxlab chaos` prints it, in the
// screen's language.
func (p Pane) table(r chaos.Report) []string {
	w := p.st.Words
	var out []string
	if r.Interrupted {
		out = append(out, "  "+p.st.App.Notice.Render(w.T("stopped: %d of the %d schedules asked for ran", r.Runs, r.Asked)))
	}
	out = append(out, "  "+w.T("%d schedules of seed %d, mode %s: %.1f s, %d payments", r.Runs, r.Seed, r.Mode, r.Elapsed.Seconds(), r.Payments), "")
	if r.OutboxRuns > 0 {
		verdict := p.st.Figures.Good.Render(w.T("it lost, invented and repeated nothing"))
		if r.OutboxViolations > 0 {
			verdict = p.st.Figures.Bad.Render(w.T("it broke a guarantee"))
		}
		out = append(out, "  "+w.T("outbox chain: %d of %d runs broke a guarantee (95%% CI %s):", r.OutboxViolations, r.OutboxRuns, interval(w, r.OutboxCI))+" "+verdict)
	}
	if r.NaiveRuns > 0 {
		out = append(out,
			"  "+w.T("naive write: lost events in %d of %d runs (%s, 95%% CI %s), %d events in all",
				r.NaiveLostRuns, r.NaiveRuns, percent(w, r.NaiveLostRuns, r.NaiveRuns), interval(w, r.LostCI), r.NaiveLost),
			"  "+w.T("naive write: phantom effects in %d of %d runs (%s, 95%% CI %s), %d effects in all",
				r.NaivePhantRuns, r.NaiveRuns, percent(w, r.NaivePhantRuns, r.NaiveRuns), interval(w, r.PhantomCI), r.NaivePhantom))
	}
	out = append(out, "", "  "+p.st.App.Muted.Render(w.T("the same from a shell: outboxlab chaos --runs %d --seed %d --mode %s", r.Asked, r.Seed, r.Mode)))
	return out
}

// percent and interval write a share as the screen's language does, as the
// rest of the table's numbers are (24.5% beside 7.3/s; 24,5 % beside 7,3/s).
func percent(w *catalog.Printer, k, n int) string {
	return w.T("%.1f%%", 100*float64(k)/float64(max(1, n)))
}

func interval(w *catalog.Printer, c [2]float64) string {
	return w.T("%.1f%%–%.1f%%", 100*c[0], 100*c[1])
}
