package ui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/scenes"
)

// A page is one mode of the screen: the free simulator (simulatorPage), a
// guided lesson (lessonPage) or `outboxlab play` (playPage). The root Model
// owns what every mode shares: the frame (size, boot screen, status line,
// help), the simulation with its run queue, the overlays and the panes that
// draw it. It routes to the page, chosen once when the model is set up,
// everything that differs between modes: the keys the page adds or takes
// over, what it does once a simulation is built and after each action, the
// settings and script a fresh simulation gets, and where the panes go.
// Pages keep their own state behind a pointer and are given a pageCtx, not
// the root; only Update (on bubbletea's goroutine) calls them.
//
// The interface holds what each mode does its own way. What only one mode
// has is asked of the page's type (Model.playPage, Model.lessonPage,
// Model.learn): play is the one page that takes every key, draws a caption
// and can fail; a lesson is shown by a lessonPage, or played by play.
type page interface {
	// prepare readies the page for a fresh simulation: the settings it
	// runs on and the script n plays first.
	prepare(c pageCtx) (scenes.Settings, []scenes.Step)
	// ready runs once that simulation is built.
	ready(c pageCtx) tea.Cmd
	// key sees a key press before the simulator's keys; handled=false
	// passes it on to them.
	key(c pageCtx, msg tea.KeyPressMsg) (cmd tea.Cmd, handled bool)
	// message takes the page's own messages.
	message(c pageCtx, msg tea.Msg) (cmd tea.Cmd, handled bool)
	// done follows an action's result, before the next action starts.
	done(c pageCtx, msg actionDoneMsg) tea.Cmd
	// enable sets the page's keys, after the root set the simulator's.
	enable(c pageCtx)
	// layout places the panes in the body; body draws them there.
	layout(c pageCtx, s regions) regions
	body(c pageCtx, l regions) string
	// script is what n plays next.
	script(c pageCtx) []scenes.Step
	// status is the run's word on the status line ("" for the root's)
	// and a label of the page's own ("" for none).
	status(c pageCtx) (run, label string)
	// chaosStep is the chaos run X starts now (nil: none here).
	chaosStep(c pageCtx) *lessons.Step
}

// newPage is the page opts ask for: play, or the free simulator (a lesson
// opened later turns it into a lesson page: Model.learn).
func newPage(opts Options) page {
	if opts.Play {
		return &playPage{}
	}
	return &simulatorPage{}
}

// buildFailedMsg tells the page a simulation could not be built (the
// status line says why).
type buildFailedMsg struct{ err error }
