package ui

import (
	"context"

	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/chaos"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/ui/overlay/chaosrun"
)

// chaosRuns is how many schedules X runs outside a lesson: enough for the
// naive write's loss rate to show (under a minute on two cores).
const chaosRuns = 200

// chaosRun runs a chaos step's schedules on the server, off the UI's
// goroutine: each schedule's end and then the table come back as messages
// through events, which the pane reads one at a time.
func chaosRun(parent, ctx context.Context, res *resources, srv *pg.Server, st *lessons.Step, prefix string, id int, events chan<- tea.Msg) tea.Cmd {
	res.chaos.Add(1) // now, not in the command: shutdown must see it even before it starts
	return func() tea.Msg {
		defer res.chaos.Done()
		rep, err := st.RunChaos(ctx, srv, prefix, func(done int, o chaos.Outcome) {
			select {
			case events <- chaosrun.ProgressMsg{ID: id, Done: done, Out: o}:
			case <-ctx.Done():
			}
		})
		select {
		case events <- chaosrun.DoneMsg{ID: id, Report: rep, Err: err}:
		case <-parent.Done(): // the program ended: nobody reads it
		}
		return nil
	}
}

// startChaos opens the chaos pane and starts the run the page asks for
// (a lesson's chaos step, or the free simulator's scene in its mode).
func (m *Model) startChaos() tea.Cmd {
	st := m.page.chaosStep(m.pageCtx())
	if st == nil && m.chaos.Report() != nil {
		// The step is done: X shows its table again, for the quiz.
		m.overlays.push(overlayChaos)
		return m.resize()
	}
	if st == nil || m.srv == nil {
		return nil
	}
	// Each run's id is one past the run before's: messages of an older
	// run (still draining after esc) are not this one's.
	id := m.chaos.ID() + 1
	ctx, cancel := context.WithCancel(m.ctx)
	m.chaos = chaosrun.New(m.st, id, st.Chaos, string(st.Settings.Mode), cancel)
	m.overlays.push(overlayChaos)
	m.run.stopAutoplay()
	run := chaosRun(m.ctx, ctx, m.res, m.srv, st, pg.NamespaceOf(m.opts.DBPrefix).Sub("chaos").Prefix(), id, m.chaos.Events())
	return tea.Batch(run, m.chaos.Wait(), m.resize())
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
