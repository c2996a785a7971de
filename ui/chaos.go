package ui

import (
	"context"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/progress"
	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/chaos"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/screen"
)

// chaosRuns is how many schedules X runs outside a lesson: enough for the
// naive write's loss rate to show (under a minute on two cores).
const chaosRuns = 200

type chaosKeys struct {
	Close key.Binding
}

func defaultChaosKeys(w *catalog.Printer) chaosKeys {
	return chaosKeys{Close: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", w.T("stop or close")))}
}

func (k chaosKeys) ShortHelp() []key.Binding  { return []key.Binding{k.Close} }
func (k chaosKeys) FullHelp() [][]key.Binding { return [][]key.Binding{{k.Close}} }

// chaosProgressMsg is one schedule's end; chaosDoneMsg the run's table.
type chaosProgressMsg struct {
	id   int
	done int
	out  chaos.Outcome
}

type chaosDoneMsg struct {
	id     int
	report chaos.Report
	err    error
}

// closeChaosMsg closes the chaos pane.
type closeChaosMsg struct{}

// chaosRun runs a chaos step's schedules on the server, off the UI's
// goroutine: each schedule's end and then the table come back as messages
// through events, which waitChaosCmd reads one at a time.
func chaosRun(parent, ctx context.Context, res *resources, srv *pg.Server, st *lessons.Step, prefix string, id int, events chan tea.Msg) tea.Cmd {
	res.chaos.Add(1) // now, not in the command: shutdown must see it even before it starts
	return func() tea.Msg {
		defer res.chaos.Done()
		rep, err := st.RunChaos(ctx, srv, prefix, func(done int, o chaos.Outcome) {
			select {
			case events <- chaosProgressMsg{id: id, done: done, out: o}:
			case <-ctx.Done():
			}
		})
		select {
		case events <- chaosDoneMsg{id: id, report: rep, err: err}:
		case <-parent.Done(): // the program ended: nobody reads it
		}
		return nil
	}
}

func waitChaosCmd(events chan tea.Msg) tea.Cmd {
	return func() tea.Msg { return <-events }
}

// chaosPane shows a chaos run: a progress bar with the runs per second and
// what broke so far while it runs, then its table, in the screen's
// language. Esc stops a run (the table then counts what ran) or closes it.
type chaosPane struct {
	st     *Styles
	keys   chaosKeys
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

func newChaosPane(st *Styles, id, total int, mode string, cancel context.CancelFunc) chaosPane {
	return chaosPane{
		st: st, keys: defaultChaosKeys(st.Words), id: id, total: total, mode: mode, start: time.Now(), cancel: cancel,
		bar: progress.New(progress.WithDefaultBlend(), progress.WithoutPercentage()), events: make(chan tea.Msg, 16),
	}
}

func (p *chaosPane) SetSize(w, h int) {
	p.w, p.h = w, h
	p.bar.SetWidth(max(10, min(60, w-4)))
}

func (p chaosPane) ShortHelp() []key.Binding  { return p.keys.ShortHelp() }
func (p chaosPane) FullHelp() [][]key.Binding { return p.keys.FullHelp() }

func (p chaosPane) running() bool { return p.report == nil && p.err == nil }

func (p chaosPane) Update(msg tea.Msg) (chaosPane, tea.Cmd) {
	switch msg := msg.(type) {
	case chaosProgressMsg:
		if msg.id != p.id {
			return p, nil
		}
		p.done = msg.done
		if msg.out.Violated() {
			p.broke++
		}
		if msg.out.NaiveLost > 0 {
			p.lost++
		}
		if msg.out.NaivePhantom > 0 {
			p.phantom++
		}
		return p, waitChaosCmd(p.events)
	case chaosDoneMsg:
		if msg.id != p.id {
			return p, nil
		}
		p.err = msg.err
		if msg.err == nil {
			p.report = &msg.report
		}
		p.cancel() // the run is over: its context goes
		return p, nil
	case tea.KeyPressMsg:
		if key.Matches(msg, p.keys.Close) {
			if p.running() {
				p.cancel() // the run ends with what ran: its table follows
				return p, nil
			}
			return p, func() tea.Msg { return closeChaosMsg{} }
		}
	}
	return p, nil
}

func (p chaosPane) View() string {
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
func (p chaosPane) table(r chaos.Report) []string {
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

// startChaos opens the chaos pane and starts the run the page asks for
// (a lesson's chaos step, or the free simulator's scene in its mode).
func (m *Model) startChaos() tea.Cmd {
	st := m.page.chaosStep(m.pageCtx())
	if st == nil && m.chaos.report != nil {
		// The step is done: X shows its table again, for the quiz.
		m.overlays.push(overlayChaos)
		return m.resize()
	}
	if st == nil || m.srv == nil {
		return nil
	}
	m.chaosID++
	ctx, cancel := context.WithCancel(m.ctx)
	m.chaos = newChaosPane(m.st, m.chaosID, st.Chaos, string(st.Settings.Mode), cancel)
	m.overlays.push(overlayChaos)
	m.stopAutoplay()
	run := chaosRun(m.ctx, ctx, m.res, m.srv, st, pg.NamespaceOf(m.opts.DBPrefix).Sub("chaos").Prefix(), m.chaosID, m.chaos.events)
	return tea.Batch(run, waitChaosCmd(m.chaos.events), m.resize())
}

// freeChaosStep is X outside a lesson: chaosRuns schedules of the scene's
// mode and seed.
func freeChaosStep(c pageCtx) *lessons.Step {
	set := c.run.settings()
	if c.opts.Seed != 0 {
		set.Seed = c.opts.Seed // the seed the status line shows
	}
	return &lessons.Step{Title: c.run.scene().Name, Chaos: chaosRuns, Settings: set}
}
