package ui

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/simhttp"
	"github.com/outboxlab/outboxlab/ui/boot"
	"github.com/outboxlab/outboxlab/ui/guarantees"
	"github.com/outboxlab/outboxlab/ui/metrics"
	"github.com/outboxlab/outboxlab/ui/overlay/chaosrun"
	"github.com/outboxlab/outboxlab/ui/overlay/chooser"
	"github.com/outboxlab/outboxlab/ui/overlay/picker"
	"github.com/outboxlab/outboxlab/ui/overlay/storyview"
	"github.com/outboxlab/outboxlab/ui/pipeline"
	"github.com/outboxlab/outboxlab/ui/tables"
	"github.com/outboxlab/outboxlab/ui/timeline"
)

type phase int

const (
	phaseBooting phase = iota
	phaseBootFailed
	phaseRunning
)

type focus int

const (
	focusTables focus = iota
	focusTimeline
	focusLesson // only with a lesson open
	focusCount
)

// Model is the root of the TUI: it owns the window, the boot screen, the
// status line and the help, and routes every message: the simulation's to
// its simView, the rest to the page of the mode it runs in (page.go). It is
// the only code that calls the simulator (always inside commands, one
// operation at a time).
type Model struct {
	ctx     context.Context
	st      *Styles
	hasDark bool
	keys    KeyMap
	help    help.Model
	w, h    int

	opts  Options
	all   []*scenes.Scene
	scene *scenes.Scene
	res   *resources
	phase phase
	srv   *pg.Server
	boot  boot.Pane

	simView      // the simulation on screen: its run, panes and overlays
	page    page // the mode of the screen: the free simulator, a lesson, play

	err   error
	first tea.Cmd         // the first command, prepared by NewModel
	http  *simhttp.Server // the HTTP API (--http), nil without it
	// tracing is OpenTelemetry for every simulation built (the story's
	// trace view, --otlp); nil traces nothing.
	tracing *tracing
}

func newModel(ctx context.Context, opts Options, all []*scenes.Scene, sc *scenes.Scene, res *resources) Model {
	st := DefaultStyles(true)
	st.Words = catalog.For(opts.Lang)
	m := Model{
		ctx: ctx, st: &st, hasDark: true, keys: DefaultKeyMap(st.Words), help: help.New(),
		opts: opts, all: all, scene: sc, res: res, page: newPage(opts),
	}
	m.run = newRunState()
	m.help.Styles = st.Help
	m.boot = boot.New(m.st)
	m.pipeline = pipeline.New(m.st)
	m.tables = tables.New(m.st)
	m.timeline = timeline.New(m.st)
	m.guarantees = guarantees.New(m.st)
	m.metrics = metrics.New(m.st)
	m.lesson = newLessonPane(m.st, sc)
	m.picker = picker.New(m.st, all, m.course(), true)
	m.picker.SelectScene(sc.Name)
	m.settings = sc.Settings
	if opts.Mode != "" {
		m.settings.Mode = scenes.Mode(opts.Mode)
	}
	m.updateKeys()
	return m
}

// NewModel builds the root model around a server that is already running
// (tests, or a caller that booted it): it starts on the main screen and
// builds the simulation for opts.Scene in its first command. Close releases
// the simulation; the server is the caller's.
func NewModel(ctx context.Context, srv *pg.Server, opts Options) (Model, error) {
	m, err := setup(ctx, opts, newResources())
	if err != nil {
		return Model{}, err
	}
	m.srv, m.phase = srv, phaseRunning
	m.first = m.buildSim() // Init has a value receiver: the build is prepared here
	m.resize()             // panes at the minimum size: drawable before the first WindowSizeMsg
	return m, nil
}

// Close closes every simulation the model built (and stops the server only
// if the model booted it).
func (m Model) Close() error { return m.res.shutdown() }

func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor}
	if m.phase == phaseBooting {
		cmds = append(cmds, m.boot.Init(), bootCmd(m.ctx, m.opts.PG, m.boot.Progress(), m.res))
	} else {
		cmds = append(cmds, m.first)
	}
	return tea.Batch(cmds...)
}

// psqlCommands open the databases on screen from another terminal: the same
// tables, live. Short enough to copy at 80 columns: the password on its own.
func (m Model) psqlCommands() []string {
	if m.srv == nil || m.opts.NoPSQL {
		return nil
	}
	var out []string
	password := ""
	for _, kind := range m.settings.Pipelines() {
		u, err := url.Parse(m.srv.DatabaseURL(pg.NamespaceOf(m.opts.DBPrefix).Database(kind)))
		if err != nil {
			continue
		}
		out = append(out, fmt.Sprintf("psql -h %s -p %s -U %s %s", u.Hostname(), u.Port(), u.User.Username(), strings.TrimPrefix(u.Path, "/")))
		password, _ = u.User.Password()
	}
	if password != "" {
		out = append(out, m.st.Words.T("password: %s", password))
	}
	return out
}

// buildSim replaces the simulation with a fresh one for the current scene,
// or for the lesson's current step (the step's Settings).
func (m *Model) buildSim() tea.Cmd {
	m.simID++
	var script []scenes.Step
	m.settings, script = m.page.prepare(m.pageCtx())
	cfg := sim.Config{Server: m.srv, Settings: m.settings, Seed: m.opts.Seed, DBPrefix: m.opts.DBPrefix, Tracing: m.tracing.sim()}
	old := m.sim
	// The session the next scene renews, keeping its databases and
	// connections: only one no action is running on (an action in flight
	// would apply to the renewed run); such a session is closed instead.
	var renew *sim.Session
	if !m.run.busy {
		renew = m.session
	}
	if m.http != nil {
		// Requests queued in the old simulation die with it.
		m.http.Simulating(nil, nil, "")
		m.http.Abandon()
	}
	m.sim, m.simDone, m.session, m.pos = nil, nil, nil, sim.Position{Forked: -1}
	m.run.clear()
	m.requests, m.brokerDown = 0, false
	m.actors = nil
	m.err, m.simErr = nil, nil
	m.run.say(m.st.Words.T("building the scene's databases…"))
	m.pipeline = pipeline.New(m.st)
	m.timeline = timeline.New(m.st)
	m.guarantees = guarantees.New(m.st)
	m.metrics = metrics.New(m.st)
	m.lesson.SetPSQL(m.psqlCommands())
	m.tables.Reset(nil, m.simID, m.settings.Pipelines())
	m.timeline.SetCompare(m.settings.Mode == "compare")
	if m.settings.Mode != "compare" {
		m.compareView = false
	}
	m.updateKeys()
	return newSimCmd(m.ctx, m.res, old, renew, m.simID, cfg, script)
}

func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		cmds = append(cmds, m.resize())
		return m, tea.Batch(cmds...)

	case tea.BackgroundColorMsg:
		m.hasDark = msg.IsDark()
		st := DefaultStyles(m.hasDark)
		st.Words = m.st.Words
		*m.st = st
		m.lesson.Render()
		m.help.Styles = st.Help
		m.boot.Restyle()
		return m, nil

	case spinner.TickMsg:
		var cmd tea.Cmd
		m.boot, cmd = m.boot.Update(msg)
		return m, cmd

	case boot.ProgressMsg:
		var cmd tea.Cmd
		m.boot, cmd = m.boot.Update(msg)
		return m, cmd

	case boot.DoneMsg:
		m.boot, _ = m.boot.Update(msg)
		if msg.Err != nil {
			m.phase = phaseBootFailed
			m.err = msg.Err
			if m.opts.Play {
				// play may have no keyboard (a script, CI, a recording):
				// the failure is drawn once and returned, never waited on.
				return m, tea.Quit
			}
			return m, nil
		}
		m.srv, m.phase = msg.Srv, phaseRunning
		m.lesson.SetFacts(msg.Srv.Facts())
		if ns := msg.Srv.Namespace(m.opts.DBPrefix, pg.BesideOwner); ns.Owned() && m.opts.DBPrefix == DefaultDBPrefix {
			// The owner's simulator uses tui_*: databases of this one's own,
			// so neither resets the other's.
			m.opts.DBPrefix = ns.Prefix()
			m.res.mu.Lock()
			m.res.dropOnExit = ns
			m.res.mu.Unlock()
		}
		return m, tea.Batch(m.buildSim(), m.resize())

	case timeline.StoryOfMsg:
		if m.sim == nil {
			return m, nil
		}
		return m, storyCmd(m.sim, m.tracing, m.st.Words, msg.Entry)
	case storyMsg:
		if msg.err != nil {
			m.run.say(m.st.Words.T("no story: %s", m.st.Words.Word(msg.err.Error())))
			return m, nil
		}
		m.story = storyview.New(m.st, msg.story, msg.trace)
		m.overlays.push(overlayStory)
		m.run.pause() // the story is read still; space pages it
		return m, m.resize()
	case chaosrun.ProgressMsg:
		var cmd tea.Cmd
		m.chaos, cmd = m.chaos.Update(msg)
		return m, cmd
	case chaosrun.DoneMsg:
		m.chaos, _ = m.chaos.Update(msg)
		if msg.ID != m.chaos.ID() {
			return m, nil
		}
		cmd, _ := m.page.message(m.pageCtx(), msg)
		m.updateKeys()
		return m, cmd
	case httpRequestMsg:
		if m.sim == nil {
			m.http.Answer(sim.Answer{Ticket: msg.Ticket, Err: simhttp.ErrNoSimulation})
			return m, nil
		}
		return m, m.enqueue(action{kind: actDo, step: simhttp.Step(msg.Req), user: true, ticket: msg.Ticket})
	case chaosrun.CloseMsg:
		m.overlays.pop(overlayChaos)
		return m, m.resize()
	case storyview.CloseMsg:
		m.overlays.pop(overlayStory)
		return m, m.resize()

	case timeline.RewindToMsg:
		// The point of the log whose command recorded the entry: the
		// state right after it happened.
		to := len(m.pos.Entries)
		for i, n := range m.pos.Entries {
			if n > msg.Entry {
				to = i + 1
				break
			}
		}
		if m.session == nil {
			return m, nil
		}
		if to == m.pos.At {
			// Points are actions: a drain or a scripted command records
			// many entries, and its end is where the session stands.
			m.run.say(m.st.Words.T("that entry is part of the action the session stands after: [ goes back before it"))
			return m, nil
		}
		m.run.stopAutoplay()
		return m, m.enqueue(action{kind: actSeek, to: to, user: true})

	case simReadyMsg:
		if msg.id != m.simID {
			if msg.sim != nil {
				m.res.closeSim(msg.sim)
			}
			return m, nil
		}
		if msg.err != nil {
			m.simErr = msg.err
			m.run.say("")
			cmd, _ := m.page.message(m.pageCtx(), buildFailedMsg{msg.err})
			return m, cmd
		}
		m.sim, m.session, m.simDone, m.pos = msg.sim, msg.session, msg.done, msg.pos
		m.run.say("")
		if m.http != nil {
			m.http.Simulating(msg.sim, m.srv, m.opts.DBPrefix)
			if !m.http.Said {
				m.http.Said = true
				m.run.say(m.st.Words.T("HTTP API at http://%s (? shows a curl command)", m.http.Addr))
			}
		}
		m.tables.Reset(msg.sim, msg.id, m.settings.Pipelines())
		m.setActors(msg.actors)
		m.updateKeys()
		cmds = append(cmds, waitChangedCmd(m.ctx, m.sim, m.simDone, m.simID), m.refresh(), m.resize(), m.page.ready(m.pageCtx()))
		return m, tea.Batch(cmds...)

	case simChangedMsg:
		if msg.id != m.simID || m.sim == nil {
			return m, nil
		}
		m.run.changeGen++
		return m, tea.Batch(waitChangedCmd(m.ctx, m.sim, m.simDone, m.simID), m.refresh())

	case snapshotMsg:
		if msg.id != m.simID {
			return m, nil
		}
		again := m.run.readDone()
		m.pgDown = ""
		if down := (*sim.PostgresDownError)(nil); errors.As(msg.err, &down) {
			// The figures on screen are the last ones read: say so, and how
			// to bring the server back, rather than keep a ✓ nobody checked.
			m.pgDown = down.Reason
			m.guarantees, _ = m.guarantees.Update(guarantees.StaleMsg{Why: down.Why.In(m.st.Words)})
		}
		// The timeline is the simulator's own memory: it reads even when
		// the database cannot, and says what happened to it.
		m.timeline, _ = m.timeline.Update(msg.timeline)
		if msg.err != nil {
			m.err = msg.err
		} else {
			m.now = msg.now
			m.pipeline, _ = m.pipeline.Update(pipeline.OraclesMsg{Oracles: msg.oracles})
			m.pipeline, _ = m.pipeline.Update(pipeline.EdgesMsg{Edges: msg.edges})
			m.inFlight = false
			for _, e := range msg.edges {
				m.inFlight = m.inFlight || e.Queued > 0 || e.Unacked > 0
			}
			m.guarantees, _ = m.guarantees.Update(guarantees.OraclesMsg{Oracles: msg.oracles})
			m.metrics, _ = m.metrics.Update(metrics.OraclesMsg{Oracles: msg.oracles})
			if msg.metrics != nil {
				m.metrics, _ = m.metrics.Update(metrics.MetricsMsg{Metrics: msg.metrics})
			}
			var cmd tea.Cmd
			m.tables, cmd = m.tables.Update(msg.table)
			cmds = append(cmds, cmd)
		}
		if again {
			cmds = append(cmds, m.refresh())
		}
		cmds = append(cmds, m.resize())
		return m, tea.Batch(cmds...)

	case tables.ReadMsg:
		if msg.SimID != m.simID {
			return m, nil
		}
		var cmd tea.Cmd
		m.tables, cmd = m.tables.Update(msg)
		return m, cmd

	case actionDoneMsg:
		if msg.id != m.simID {
			return m, nil
		}
		return m.actionDone(msg)

	case tickMsg:
		if !m.run.ticked(msg.tag) {
			return m, nil // stale: paused or reset since
		}
		return m, m.enqueue(action{kind: actUnit})

	case picker.ChooseSceneMsg:
		m.overlays.pop(overlayPicker)
		sc, err := scenes.Find(m.all, msg.Name)
		if err != nil {
			m.err = err
			return m, nil
		}
		m.scene = sc
		return m, m.reset()

	case picker.ChooseLessonMsg:
		m.overlays.pop(overlayPicker)
		l, err := lessons.Find(m.course(), msg.Name)
		if err != nil {
			m.err = err
			return m, nil
		}
		return m, m.startLesson(l)

	case picker.CloseMsg:
		m.overlays.pop(overlayPicker)
		return m, m.resize()

	case chooser.FaultChosenMsg:
		m.overlays.pop(overlayChooser)
		var cmds []tea.Cmd
		for _, st := range msg.Steps {
			cmds = append(cmds, m.enqueue(action{kind: actDo, step: st, user: true}))
		}
		return m, tea.Batch(cmds...)

	case chooser.CloseMsg:
		m.overlays.pop(overlayChooser)
		return m, nil

	case tea.MouseWheelMsg:
		return m.mouse(msg)

	case tea.KeyPressMsg:
		return m.key(msg)
	}
	if cmd, ok := m.page.message(m.pageCtx(), msg); ok {
		return m, cmd
	}
	// Anything else (list filtering results, status timers) is the
	// picker's, the one overlay with messages of its own.
	if m.overlays.has(overlayPicker) {
		return m, m.updateOverlay(overlayPicker, msg)
	}
	return m, nil
}
