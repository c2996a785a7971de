package ui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
)

// pageCtx is what a page is given of the root, as soft-serve's pages are
// given a common.Common rather than the root model: the look and the words,
// the keys, what was asked for, the panes it lays out, how the run stands,
// and the simulation as a runner. A page writes no field of the root but
// the run's state, through its methods (a notice, an action queued,
// autoplay stopped); what the root must do it asks of the runner, or
// returns as a command.
type pageCtx struct {
	st    *Styles   // the styles and the screen's words (st.Words)
	keys  *KeyMap   // the keys: a page matches them, and enables its own in enable
	opts  Options   // what the command line asked for
	panes *panes    // the panes a page lays out and draws; it fills the lesson pane
	state *runState // the queue, autoplay and the notice on the status line
	run   runner    // the simulation, and what only the root can do to it
}

// runner is the simulation as a page drives it. Its asks are done at once,
// in the order the page makes them: the queue of actions is ordered, and
// messages (tea.Batch) are not.
type runner interface {
	// scene is the scene on screen; setScene opens the named one (a name
	// not among the scenes changes nothing).
	scene() *scenes.Scene
	setScene(name string)
	// settings are the simulation's; setSettings replaces them until the
	// next build.
	settings() scenes.Settings
	setSettings(scenes.Settings)
	// booted says PostgreSQL is up; up that a simulation is built on it.
	booted() bool
	up() bool
	// pos is where the session stands; actors are the actors' states
	// after the last action.
	pos() sim.Position
	actors() []sim.ActorView
	// err is the error on the status line (nil: none).
	err() error
	// script is what n plays next, as the page on screen says (a page
	// played by another asks for the outer one's).
	script() []scenes.Step

	// enqueue adds an action and starts it if nothing runs (the run's
	// state queues one without starting it).
	enqueue(a action) tea.Cmd
	// reset builds a fresh simulation (once the running action returns).
	reset() tea.Cmd
	// resize lays the screen out again; updateKeys enables the keys that
	// apply now (the page's enable included).
	resize() tea.Cmd
	updateKeys()
	// compareView says compare mode's two pipelines are side by side;
	// setCompareView shows them so or not (resize draws it).
	compareView() bool
	setCompareView(on bool)
	// setFocus gives a pane the focus.
	setFocus(f focus)
	// openPicker opens the / picker on the scene on screen.
	openPicker() tea.Cmd
	// leaveLesson closes the lesson and goes back to the free simulator
	// it was opened from, on the lesson's scene.
	leaveLesson(back *simulatorPage) tea.Cmd
	// chaos says a chaos run is open over the body, and still running;
	// startChaos starts the page's (chaosStep) or shows its table again;
	// closeChaos closes it.
	chaos() (open, running bool)
	startChaos() tea.Cmd
	closeChaos()
}

// pageCtx is the page's context on this model.
func (m *Model) pageCtx() pageCtx {
	return pageCtx{st: m.st, keys: &m.keys, opts: m.opts, panes: &m.panes, state: &m.run, run: rootRunner{m}}
}

// rootRunner is the root's side of runner.
type rootRunner struct{ m *Model }

func (r rootRunner) scene() *scenes.Scene { return r.m.scene }

func (r rootRunner) setScene(name string) {
	if sc, err := scenes.Find(r.m.all, name); err == nil {
		r.m.scene = sc
	}
}

func (r rootRunner) settings() scenes.Settings       { return r.m.settings }
func (r rootRunner) setSettings(set scenes.Settings) { r.m.settings = set }
func (r rootRunner) booted() bool                    { return r.m.phase == phaseRunning }
func (r rootRunner) up() bool                        { return r.m.phase == phaseRunning && r.m.sim != nil }
func (r rootRunner) pos() sim.Position               { return r.m.pos }
func (r rootRunner) actors() []sim.ActorView         { return r.m.actors }
func (r rootRunner) err() error                      { return r.m.err }
func (r rootRunner) script() []scenes.Step           { return r.m.page.script(r.m.pageCtx()) }
func (r rootRunner) enqueue(a action) tea.Cmd        { return r.m.enqueue(a) }
func (r rootRunner) reset() tea.Cmd                  { return r.m.reset() }
func (r rootRunner) resize() tea.Cmd                 { return r.m.resize() }
func (r rootRunner) updateKeys()                     { r.m.updateKeys() }
func (r rootRunner) compareView() bool               { return r.m.compareView }
func (r rootRunner) setCompareView(on bool)          { r.m.compareView = on }
func (r rootRunner) startChaos() tea.Cmd             { return r.m.startChaos() }
func (r rootRunner) closeChaos()                     { r.m.overlays.pop(overlayChaos) }
func (r rootRunner) chaos() (open, running bool) {
	return r.m.overlays.has(overlayChaos), r.m.chaos.Running()
}

func (r rootRunner) setFocus(f focus) {
	r.m.focus = f
	r.m.setFocus()
}

func (r rootRunner) leaveLesson(back *simulatorPage) tea.Cmd {
	r.m.page = back
	r.m.focus = focusTables
	r.m.run.say(r.m.st.Words.T("back in the free simulator: / opens a lesson"))
	return r.m.reset()
}

func (r rootRunner) openPicker() tea.Cmd {
	r.m.overlays.push(overlayPicker)
	return tea.Batch(r.m.picker.Open(r.m.scene.Name), r.m.resize())
}
