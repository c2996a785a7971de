package ui

import (
	"charm.land/lipgloss/v2"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
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

// speeds are the autoplay rates, steps per second.
var speeds = []float64{0.5, 1, 2, 4, 8, 16}

const defaultSpeed = 2

// Model is the root of the TUI: it owns the window size, the global keys
// and the routing of messages to panes, and it is the only code that calls
// the simulator (always inside commands, one operation at a time).
type Model struct {
	ctx     context.Context
	st      *Styles
	hasDark bool
	keys    KeyMap
	help    help.Model
	w, h    int

	opts   Options
	all    []*scenes.Scene
	scene  *scenes.Scene
	res    *resources
	phase  phase
	srv    *pg.Server
	boot   bootPane
	stages chan pg.Progress

	sim      *sim.Sim
	session  *sim.Session // logs what is done to sim: rewind, fork, save
	pos      sim.Position // where the session stands (read after each action)
	simDone  chan struct{}
	simID    int
	settings scenes.Settings
	simErr   error

	pipeline   pipelinePane
	tables     tablesPane
	timeline   timelinePane
	guarantees guaranteesPane
	metrics    metricsPane
	lesson     lessonPane
	picker     pickerPane
	chooser    chooserPane
	story      storyPane // one message's life, over the body while showStory

	showPicker  bool
	showChooser bool
	showStory   bool
	compareView bool
	focus       focus

	// Play: one simulator operation at a time, in queue order.
	playing     bool
	tickTag     int
	tickPending bool
	speed       int
	busy        bool
	queue       []action
	resetting   bool // a reset waits for the running operation
	requests    int
	brokerDown  bool
	pgDown      string // PostgreSQL stopped under the simulation: why
	inFlight    bool   // something waits in an outbox or the broker (the last snapshot)
	// compareScene is the scene v switched to compare mode; another scene
	// opens in its own mode.
	compareScene string
	actors       []sim.ActorView

	// A guided lesson (lesson.lesson != nil): its course, the timeline
	// length when the step began, and the learner's saved progress.
	course courseState

	// `outboxlab play`: captions, and the tagged tick that drives it.
	play playState

	refreshing bool
	dirty      bool
	changeGen  int
	now        time.Time
	notice     string
	err        error
	first      tea.Cmd // the first command, prepared by NewModel
}

func newModel(ctx context.Context, opts Options, all []*scenes.Scene, sc *scenes.Scene, res *resources) Model {
	st := DefaultStyles(true)
	st.Words = catalog.For(opts.Lang)
	m := Model{
		ctx: ctx, st: &st, hasDark: true, keys: DefaultKeyMap(st.Words), help: help.New(),
		opts: opts, all: all, scene: sc, res: res, speed: defaultSpeed,
	}
	m.help.Styles = st.Help
	m.boot = newBootPane(m.st)
	m.pipeline = newPipelinePane(m.st)
	m.tables = newTablesPane(m.st)
	m.timeline = newTimelinePane(m.st)
	m.guarantees = newGuaranteesPane(m.st)
	m.metrics = newMetricsPane(m.st)
	m.lesson = newLessonPane(m.st, sc)
	m.picker = newPickerPane(m.st, all, true)
	m.picker.selectScene(sc.Name)
	m.settings = m.sceneSettings(sc)
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
	return m, nil
}

// Close closes every simulation the model built (and stops the server only
// if the model booted it).
func (m Model) Close() error { return m.res.shutdown() }

func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor}
	if m.phase == phaseBooting {
		cmds = append(cmds, m.boot.spin.Tick, bootCmd(m.ctx, m.opts.PG, m.stages, m.res), waitProgressCmd(m.stages))
	} else {
		cmds = append(cmds, m.first)
	}
	return tea.Batch(cmds...)
}

// psqlCommands open the databases on screen from another terminal: the same
// tables, live. Short enough to copy at 80 columns: the password on its own.
func (m Model) psqlCommands() []string {
	if m.srv == nil {
		return nil
	}
	var out []string
	password := ""
	for _, kind := range m.settings.Pipelines() {
		u, err := url.Parse(m.srv.DatabaseURL(m.opts.DBPrefix + "_" + kind))
		if err != nil {
			continue
		}
		out = append(out, fmt.Sprintf("psql -h %s -p %s -U %s %s", u.Hostname(), u.Port(), u.User.Username(), strings.TrimPrefix(u.Path, "/")))
		password, _ = u.User.Password()
	}
	if password != "" {
		out = append(out, "password: "+password)
	}
	return out
}

func (m Model) sceneSettings(sc *scenes.Scene) scenes.Settings {
	set := sc.Settings
	if m.opts.Mode != "" {
		set.Mode = scenes.Mode(m.opts.Mode)
	}
	if m.compareScene == sc.Name {
		set.Mode = "compare"
	}
	return set
}

// buildSim replaces the simulation with a fresh one for the current scene,
// or for the lesson's current step (Lesson.NewSim's settings).
func (m *Model) buildSim() tea.Cmd {
	m.simID++
	if st := m.lesson.current(); st != nil {
		m.settings = st.Settings
		m.course.since = 0
	} else {
		m.settings = m.sceneSettings(m.scene)
	}
	cfg := sim.Config{Server: m.srv, Settings: m.settings, Seed: m.opts.Seed, DBPrefix: m.opts.DBPrefix}
	old := m.sim
	m.sim, m.simDone, m.session, m.pos = nil, nil, nil, sim.Position{Forked: -1}
	m.playing, m.tickPending, m.busy, m.queue = false, false, false, nil
	m.tickTag++
	m.requests, m.brokerDown = 0, false
	m.refreshing, m.dirty, m.changeGen = false, false, 0
	m.actors = nil
	m.err, m.simErr = nil, nil
	m.notice = m.st.Words.T("building the scene's databases…")
	m.pipeline = newPipelinePane(m.st)
	m.timeline = newTimelinePane(m.st)
	m.guarantees = newGuaranteesPane(m.st)
	m.metrics = newMetricsPane(m.st)
	if m.lesson.lesson == nil {
		facts := m.lesson.facts
		m.lesson = newLessonPane(m.st, m.scene)
		m.lesson.facts = facts
	} else if m.lesson.stage <= stagePassed {
		m.lesson.startStep(m.lesson.step)
	}
	m.lesson.psql = m.psqlCommands()
	m.tables.reset(nil, m.simID, m.settings.Pipelines())
	m.timeline.compare = m.settings.Mode == "compare"
	if m.settings.Mode != "compare" {
		m.compareView = false
	}
	m.updateKeys()
	var script []scenes.Step
	if m.lesson.lesson == nil {
		script = m.scene.Steps // a lesson's step sets its own (startChecks)
	}
	return newSimCmd(m.ctx, m.res, old, m.simID, cfg, script)
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
		m.lesson.render()
		m.help.Styles = st.Help
		m.boot.spin.Style = st.Spinner
		return m, nil

	case spinner.TickMsg:
		var cmd tea.Cmd
		m.boot, cmd = m.boot.Update(msg)
		return m, cmd

	case bootProgressMsg:
		m.boot, _ = m.boot.Update(msg)
		return m, waitProgressCmd(m.stages)

	case bootDoneMsg:
		m.boot, _ = m.boot.Update(msg)
		if msg.err != nil {
			m.phase = phaseBootFailed
			m.err = msg.err
			return m, nil
		}
		m.srv, m.phase = msg.srv, phaseRunning
		m.lesson.facts = msg.srv.Facts()
		if msg.srv.SharedWith != "" && m.opts.DBPrefix == DefaultDBPrefix {
			// The owner's simulator uses tui_*: databases of this one's own,
			// so neither resets the other's.
			m.opts.DBPrefix = fmt.Sprintf("%s%d", DefaultDBPrefix, os.Getpid())
			m.res.mu.Lock()
			for _, kind := range []string{"outbox", "naive"} {
				m.res.dropOnExit = append(m.res.dropOnExit, m.opts.DBPrefix+"_"+kind)
			}
			m.res.mu.Unlock()
		}
		return m, tea.Batch(m.buildSim(), m.resize())

	case storyOfMsg:
		if m.sim == nil {
			return m, nil
		}
		return m, storyCmd(m.sim, msg.entry)
	case storyMsg:
		if msg.err != nil {
			m.notice = m.st.Words.T("no story: %s", m.st.Words.Word(msg.err.Error()))
			return m, nil
		}
		m.story, m.showStory = newStoryPane(m.st, msg.story), true
		m.playing = false // the story is read still; space pages it
		m.tickTag++
		return m, m.resize()
	case closeStoryMsg:
		m.showStory = false
		return m, m.resize()

	case rewindToMsg:
		// The point of the log whose command recorded the entry: the
		// state right after it happened.
		to := len(m.pos.Entries)
		for i, n := range m.pos.Entries {
			if n > msg.entry {
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
			m.notice = m.st.Words.T("that entry is part of the action the session stands after: [ goes back before it")
			return m, nil
		}
		m.stopAutoplay()
		return m, m.enqueue(action{kind: actSeek, to: to, user: true})

	case simReadyMsg:
		if msg.id != m.simID {
			if msg.sim != nil {
				m.res.closeSim(msg.sim)
			}
			return m, nil
		}
		if msg.err != nil {
			m.simErr, m.notice = msg.err, ""
			return m, nil
		}
		m.sim, m.session, m.simDone, m.notice, m.pos = msg.sim, msg.session, msg.done, "", msg.pos
		m.tables.reset(msg.sim, msg.id, m.settings.Pipelines())
		m.setActors(msg.actors)
		m.updateKeys()
		cmds = append(cmds, waitChangedCmd(m.ctx, m.sim, m.simDone, m.simID), m.refresh(), m.resize())
		switch {
		case m.lesson.lesson != nil && m.lesson.stage == stageStep:
			cmds = append(cmds, m.startChecks())
		case m.opts.Play:
			m.play.caption = m.scene.TitleIn(m.opts.Lang) + ": " + oneLine(m.scene.TeachesIn(m.opts.Lang))
			m.play.delay = m.readTime(m.play.caption)
			cmds = append(cmds, m.schedulePlay())
		case m.opts.Autoplay:
			m.playing = true
			cmds = append(cmds, m.enqueue(action{kind: actUnit}))
		}
		return m, tea.Batch(cmds...)

	case simChangedMsg:
		if msg.id != m.simID || m.sim == nil {
			return m, nil
		}
		m.changeGen++
		return m, tea.Batch(waitChangedCmd(m.ctx, m.sim, m.simDone, m.simID), m.refresh())

	case snapshotMsg:
		if msg.id != m.simID {
			return m, nil
		}
		m.refreshing = false
		m.pgDown = ""
		if down := (*sim.PostgresDownError)(nil); errors.As(msg.err, &down) {
			// The figures on screen are the last ones read: say so, and how
			// to bring the server back, rather than keep a ✓ nobody checked.
			m.pgDown = down.Reason
			m.guarantees, _ = m.guarantees.Update(staleMsg{why: down.Why.In(m.st.Words)})
		}
		// The timeline is the simulator's own memory: it reads even when
		// the database cannot, and says what happened to it.
		m.timeline, _ = m.timeline.Update(msg.timeline)
		if msg.err != nil {
			m.err = msg.err
		} else {
			m.now = msg.now
			m.pipeline, _ = m.pipeline.Update(msg.oracles)
			m.pipeline, _ = m.pipeline.Update(msg.edges)
			m.inFlight = false
			for _, e := range msg.edges.edges {
				m.inFlight = m.inFlight || e.Queued > 0 || e.Unacked > 0
			}
			m.guarantees, _ = m.guarantees.Update(msg.oracles)
			m.metrics, _ = m.metrics.Update(msg.oracles)
			if msg.metrics.metrics != nil {
				m.metrics, _ = m.metrics.Update(msg.metrics)
			}
			var cmd tea.Cmd
			m.tables, cmd = m.tables.Update(msg.table)
			cmds = append(cmds, cmd)
		}
		if m.dirty {
			m.dirty = false
			cmds = append(cmds, m.refresh())
		}
		cmds = append(cmds, m.resize())
		return m, tea.Batch(cmds...)

	case tableMsg:
		if msg.simID != m.simID {
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

	case playTickMsg:
		if msg.tag != m.play.tag || m.play.paused {
			return m, nil
		}
		return m.playNext()

	case progressSavedMsg:
		if msg.err != nil {
			m.notice = m.st.Words.T("progress not saved: %s", oneLine(msg.err.Error()))
		}
		return m, nil

	case tickMsg:
		if msg.tag != m.tickTag || !m.playing {
			return m, nil // stale: paused or reset since
		}
		m.tickPending = false
		return m, m.enqueue(action{kind: actUnit})

	case chooseSceneMsg:
		m.showPicker = false
		sc, err := scenes.Find(m.all, msg.name)
		if err != nil {
			m.err = err
			return m, nil
		}
		m.scene = sc
		return m, m.reset()

	case closePickerMsg:
		m.showPicker = false
		return m, m.resize()

	case faultChosenMsg:
		m.showChooser = false
		var cmds []tea.Cmd
		for _, st := range msg.steps {
			cmds = append(cmds, m.enqueue(action{kind: actDo, step: st, user: true}))
		}
		return m, tea.Batch(cmds...)

	case closeChooserMsg:
		m.showChooser = false
		return m, nil

	case tea.MouseWheelMsg:
		return m.mouse(msg)

	case tea.KeyPressMsg:
		return m.key(msg)
	}
	// Anything else (list filtering results, status timers) goes to the
	// overlay that is open.
	if m.showPicker {
		var cmd tea.Cmd
		m.picker, cmd = m.picker.Update(msg)
		return m, cmd
	}
	return m, nil
}

func (m Model) key(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if msg.String() == "ctrl+c" {
		return m, tea.Quit
	}
	if m.phase != phaseRunning {
		if key.Matches(msg, m.keys.Quit) {
			return m, tea.Quit
		}
		return m, nil
	}
	if m.showPicker {
		var cmd tea.Cmd
		m.picker, cmd = m.picker.Update(msg)
		return m, cmd
	}
	if m.showChooser {
		var cmd tea.Cmd
		m.chooser, cmd = m.chooser.Update(msg)
		return m, cmd
	}
	if m.showStory {
		var cmd tea.Cmd
		m.story, cmd = m.story.Update(msg)
		return m, cmd
	}
	k := &m.keys
	if m.opts.Play {
		return m.playKey(msg)
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m, tea.Quit
	case key.Matches(msg, k.Hint):
		if st := m.lesson.current(); st != nil {
			m.lesson.keyHint = keyHint(st.Solution, m.actors, m.settings)
		}
		m.lesson.toggleHint()
		m.updateKeys()
		return m, m.resize()
	case key.Matches(msg, k.Next):
		return m, m.lessonNext()
	case key.Matches(msg, k.Choose):
		m.lesson.choose(int(msg.String()[0] - '1'))
		return m, nil
	case key.Matches(msg, k.Help):
		m.help.ShowAll = !m.help.ShowAll
		return m, m.resize()
	case key.Matches(msg, k.Scenes):
		m.showPicker = true
		return m, tea.Batch(m.picker.open(m.scene.Name), m.resize())
	case key.Matches(msg, k.NextPane):
		m.nextFocus()
		return m, nil
	case key.Matches(msg, k.Compare):
		switch {
		case m.compareScene == m.scene.Name && !m.compareView:
			// Back from the compare mode v switched to: the scene's own.
			m.compareScene = ""
			return m, m.reset()
		case m.settings.Mode == "compare":
			m.compareView = !m.compareView
			return m, m.resize()
		case m.lesson.lesson != nil:
			m.notice = m.st.Words.T("a lesson keeps its own mode: compare mode is for scenes, outside lessons")
			return m, nil
		}
		// Outside compare mode, v switches this scene to it: it starts
		// again with the naive dual write beside the outbox.
		m.compareScene, m.compareView = m.scene.Name, true
		return m, m.reset()
	case key.Matches(msg, k.Back), key.Matches(msg, k.Forward):
		// A rewind resets the databases and replays the session's log
		// up to the point before (or after) this one.
		kind, end := actBack, m.pos.At == 0
		if key.Matches(msg, k.Forward) {
			kind, end = actForward, m.pos.At == m.pos.Len
		}
		if end {
			m.notice = m.positionNotice()
			if kind == actBack {
				m.notice = m.st.Words.T("at the start of the session: nothing to go back to")
			}
			return m, nil
		}
		m.stopAutoplay()
		return m, m.enqueue(action{kind: kind, user: true})
	case key.Matches(msg, k.Other):
		m.stopAutoplay()
		return m, m.enqueue(action{kind: actOther, user: true})
	case key.Matches(msg, k.Save):
		return m, m.enqueue(action{kind: actSave, user: true, save: saveTo{dir: m.opts.ScenesDir, base: m.scene}})
	case key.Matches(msg, k.Reset):
		if m.lesson.lesson != nil {
			m.restartStep()
		}
		return m, m.reset()
	case key.Matches(msg, k.Play):
		m.playing = !m.playing
		m.tickTag++
		m.tickPending = false
		m.notice = ""
		if m.playing {
			return m, m.enqueue(action{kind: actUnit})
		}
		return m, nil
	case key.Matches(msg, k.Step):
		m.notice = ""
		return m, m.enqueue(action{kind: actUnit, user: true})
	case key.Matches(msg, k.Faster):
		m.speed = min(len(speeds)-1, m.speed+1)
		return m, nil
	case key.Matches(msg, k.Slower):
		m.speed = max(0, m.speed-1)
		return m, nil
	case key.Matches(msg, k.Crash), key.Matches(msg, k.Stall), key.Matches(msg, k.Move), key.Matches(msg, k.AdvanceBy):
		fault := "crash"
		switch {
		case key.Matches(msg, k.Stall):
			fault = "stall"
		case key.Matches(msg, k.Move):
			fault = "move"
		case key.Matches(msg, k.AdvanceBy):
			fault = "advance"
		}
		m.chooser = newChooserPane(m.st, fault, m.actors)
		m.showChooser = true
		return m, nil
	case key.Matches(msg, k.Drain):
		m.notice = ""
		return m, m.enqueue(action{kind: actDo, step: scenes.Drain, user: true})
	case key.Matches(msg, k.Requeue):
		return m, m.enqueue(action{kind: actDo, step: scenes.Requeue, user: true})
	case key.Matches(msg, k.Capture):
		return m, m.enqueue(action{kind: actDo, step: scenes.Capture, user: true})
	case key.Matches(msg, k.Reuse):
		return m, m.enqueue(action{kind: actDo, step: scenes.ResendOther(fmt.Sprintf("k-%d", m.requests)), user: true})
	case key.Matches(msg, k.Duplicate):
		return m, m.enqueue(action{kind: actDo, step: scenes.Duplicate, user: true})
	case key.Matches(msg, k.Broker):
		return m, m.enqueue(action{kind: actDo, step: scenes.Broker(m.brokerDown), user: true})
	case key.Matches(msg, k.RestartPG):
		return m, m.enqueue(action{kind: actDo, step: scenes.RestartPostgres, user: true})
	case key.Matches(msg, k.FailNext):
		if m.settings.Mode == "compare" {
			// Two writers run: ask which one's COMMIT fails, rather than
			// arm both (a lesson's later step would be done already).
			m.chooser = newChooserPane(m.st, "fail", m.actors)
			m.chooser.naive = m.settings.Naive
			m.showChooser = true
			return m, nil
		}
		return m, m.enqueue(action{kind: actDo, step: failCommitStep(m.settings.Pipelines()[0], m.settings), user: true})
	case key.Matches(msg, k.Payment), key.Matches(msg, k.Poison):
		m.requests++
		// A poison payload fails the topic's schema: the broker refuses it
		// every time, until the relay dead-letters it (S15).
		st := scenes.Request(1000+250*m.requests, "acme", fmt.Sprintf("k-%d", m.requests), key.Matches(msg, k.Poison))
		m.updateKeys()
		return m, m.enqueue(action{kind: actDo, step: st, user: true})
	case key.Matches(msg, k.Resend):
		// The learner's own last payment, by its key: not a request the
		// scene's script sent since.
		return m, m.enqueue(action{kind: actDo, step: scenes.Resend(fmt.Sprintf("k-%d", m.requests)), user: true})
	case key.Matches(msg, k.Advance):
		return m, m.enqueue(action{kind: actDo, step: scenes.Advance(m.settings.Lease + time.Second), user: true})
	}
	// Everything else is the focused pane's.
	var cmd tea.Cmd
	switch m.focus {
	case focusTables:
		m.tables, cmd = m.tables.Update(msg)
	case focusTimeline:
		m.timeline, cmd = m.timeline.Update(msg)
	case focusLesson:
		m.lesson, cmd = m.lesson.Update(msg)
	}
	m.updateKeys()
	return m, cmd
}

// failCommitStep arms a failed COMMIT on a pipeline's writer, at the
// checkpoint that comes just before its COMMIT.
func failCommitStep(kind string, set scenes.Settings) scenes.Step {
	if kind == "naive" {
		at := engine.NaiveInserted
		if set.Naive == "publish-then-commit" {
			at = engine.NaivePublished
		}
		return scenes.Arm(scenes.FailCommit, "naive", at)
	}
	return scenes.Arm(scenes.FailCommit, "api", engine.APIInserted)
}

func (m Model) mouse(msg tea.MouseWheelMsg) (tea.Model, tea.Cmd) {
	if m.phase != phaseRunning || m.showPicker || m.showChooser {
		return m, nil
	}
	l := m.layout()
	y := msg.Mouse().Y
	var cmd tea.Cmd
	switch {
	case l.tables.contains(msg.Mouse().X, y):
		m.tables, cmd = m.tables.Update(msg)
	case l.timeline.contains(msg.Mouse().X, y):
		m.timeline, cmd = m.timeline.Update(msg)
	case l.lesson.contains(msg.Mouse().X, y):
		m.lesson, cmd = m.lesson.Update(msg)
	}
	return m, cmd
}

func (m *Model) setFocus() {
	m.tables.focused = m.focus == focusTables
	m.timeline.focused = m.focus == focusTimeline
	m.lesson.focused = m.focus == focusLesson
}

// reset rebuilds the simulation for the current scene, once the operation
// in flight (if any) has returned.
func (m *Model) reset() tea.Cmd {
	m.playing = false
	m.tickTag++
	m.queue = nil
	if m.busy {
		m.resetting = true
		return nil
	}
	return tea.Batch(m.buildSim(), m.resize())
}

// enqueue adds an action and starts it if nothing runs.
func (m *Model) enqueue(a action) tea.Cmd {
	if m.sim == nil {
		return nil
	}
	m.queue = append(m.queue, a)
	return m.startNext()
}

// startNext starts the next queued action unless one is running.
func (m *Model) startNext() tea.Cmd {
	if m.busy || m.sim == nil || len(m.queue) == 0 {
		return nil
	}
	a := m.queue[0]
	m.queue = m.queue[1:]
	if a.kind == actEval && (a.check != m.lesson.current() || m.lesson.stage != stageStep) {
		// The step moved on since: nothing to check.
		return m.startNext()
	}
	m.busy = true
	return actionCmd(m.ctx, m.session, m.simID, a)
}

func (m Model) actionDone(msg actionDoneMsg) (tea.Model, tea.Cmd) {
	m.busy = false
	var cmds []tea.Cmd
	m.setActors(msg.actors)
	m.now = msg.now
	a := msg.act
	m.moved(msg)
	if msg.err != nil {
		m.err = msg.err
		m.playing = false
		m.tickTag++
	} else {
		if a.user {
			m.err = nil // the learner's action went through: an old refusal is history
		}
		// A scripted run or drain moves on in the session (sim.Session.Play);
		// a step of the learner's that moved nothing is said.
		if !a.inRun && !a.script && a.kind == actStep && !msg.moved {
			if m.playing {
				m.playing = false
				m.tickTag++
			}
			m.notice = m.stuckNotice()
		}
		if a.script && !a.inRun && m.pos.Script >= m.pos.ScriptLen && m.pos.Run == "" && m.lesson.lesson == nil {
			m.notice = m.st.Words.T("the scene's script is done; keep stepping or break something")
		}
	}
	if msg.eval != nil && msg.err == nil {
		cmds = append(cmds, m.checked(a, *msg.eval))
	} else if a.kind != actEval && a.kind != actScript {
		m.captionFor(a, msg.entries)
		if m.lesson.lesson != nil && m.lesson.stage == stageStep {
			// Every action's result is checked against the simulator
			// before anything else runs.
			m.queue = append([]action{m.checkAction(false)}, m.queue...)
		}
	}
	if m.resetting {
		m.resetting = false
		return m, tea.Batch(m.buildSim(), m.resize())
	}
	if m.opts.Play && len(m.queue) == 0 {
		cmds = append(cmds, m.schedulePlay())
	}
	if m.playing && !m.tickPending && len(m.queue) == 0 {
		m.tickPending = true
		cmds = append(cmds, tickCmd(m.interval(), m.tickTag))
	}
	cmds = append(cmds, m.startNext(), m.resize())
	return m, tea.Batch(cmds...)
}

// moved follows the session's position after an action: a fork said on
// screen and marked in the timeline, a rewound session's place, a saved file.
func (m *Model) moved(msg actionDoneMsg) {
	was := m.pos
	m.pos = msg.pos
	switch msg.act.kind {
	case actBack, actForward, actSeek, actOther:
		m.playing = false
		m.tickTag++
		// The learner's payments are numbered by their keys: after a
		// rewind the next p is the one that came next then.
		m.requests = m.pos.Keys
		if msg.err == nil {
			m.notice = m.positionNotice()
			if msg.act.kind == actOther {
				m.notice = m.st.Words.T("the other future: %d commands after the fork; u swaps back", m.pos.Len-m.pos.Forked)
			}
		}
		return
	case actSave:
		if msg.err == nil {
			dir := filepath.Dir(msg.saved)
			name := strings.TrimSuffix(filepath.Base(msg.saved), scenes.Ext)
			m.notice = m.st.Words.T("saved %s (outboxlab run --scenes %s %s replays it)", msg.saved, dir, name)
		}
		return
	case actEval, actScript:
		return
	}
	if m.pos.Forked >= 0 && m.pos.Forked != was.Forked || m.pos.Forked >= 0 && was.Len > was.At && m.pos.Len == m.pos.At {
		dropped := was.Len - was.At
		m.notice = m.st.Words.T("forked: %d later commands discarded; the timeline marks where", dropped)
		at := 0
		if m.pos.Forked > 0 && m.pos.Forked <= len(m.pos.Entries) {
			at = m.pos.Entries[m.pos.Forked-1]
		}
		m.timeline, _ = m.timeline.Update(forkMsg{at: at})
	}
}

// stopAutoplay stops autoplay before a rewind: the steps it queued go,
// what the learner already pressed still runs.
func (m *Model) stopAutoplay() {
	m.playing, m.queue = false, slices.DeleteFunc(m.queue, func(a action) bool { return !a.user })
	m.tickTag++
}

// positionNotice says where a rewound session stands, and what acting now
// does to the rest of its log.
func (m Model) positionNotice() string {
	if m.pos.At == m.pos.Len {
		return m.st.Words.T("at the end of the session (%d commands)", m.pos.Len)
	}
	return m.st.Words.T("rewound: %d of %d · [ ] back/forward · acting now discards %d (a fork)", m.pos.At, m.pos.Len, m.pos.Len-m.pos.At)
}

func (m Model) interval() time.Duration {
	return time.Duration(float64(time.Second) / speeds[m.speed])
}

func (m *Model) setActors(actors []sim.ActorView) {
	m.actors = actors
	m.pipeline, _ = m.pipeline.Update(actorsMsg{actors})
	if m.lesson.lesson != nil {
		// The hint's keys number the actors on screen: drawn while a fresh
		// simulation was still being built, they are drawn again now.
		if st := m.lesson.current(); st != nil && m.lesson.showHint {
			if h := keyHint(st.Solution, actors, m.settings); h != m.lesson.keyHint {
				m.lesson.keyHint = h
				m.lesson.render()
			}
		}
		m.lesson.refreshCarried(actors)
	}
	m.brokerDown = false
	for _, a := range actors {
		if a.Name == "broker" && a.State == sim.Down {
			m.brokerDown = true
		}
	}
	m.updateKeys()
}

// refresh reads the simulation again, or notes that it must once the read
// in flight returns.
func (m *Model) refresh() tea.Cmd {
	if m.sim == nil {
		return nil
	}
	if m.refreshing {
		m.dirty = true
		return nil
	}
	m.refreshing = true
	return snapshotCmd(m.ctx, m.sim, m.simID, m.changeGen, m.timeline.epoch, m.timeline.total, m.tables.request())
}

// updateKeys enables the keys that apply now, so help shows only those.
func (m *Model) updateKeys() {
	k := &m.keys
	running := m.phase == phaseRunning && m.sim != nil
	for _, b := range k.all() {
		b.SetEnabled(running)
	}
	k.Quit.SetEnabled(true)
	k.Help.SetEnabled(m.phase == phaseRunning)
	k.Scenes.SetEnabled(m.phase == phaseRunning)
	k.Compare.SetEnabled(running)
	// A rewind or a saved session is the free simulator's: a lesson's
	// checks read the timeline from where its step began, and play's
	// script runs by itself.
	free := running && m.lesson.lesson == nil && !m.opts.Play
	k.Back.SetEnabled(free)
	k.Forward.SetEnabled(free)
	k.Save.SetEnabled(free)
	k.Other.SetEnabled(free && m.pos.Other > 0)
	m.timeline.keys.Rewind.SetEnabled(free)
	k.Resend.SetEnabled(running && m.requests > 0)
	k.Reuse.SetEnabled(running && m.requests > 0)
	// An external server (--database-url) is not outboxlab's to stop.
	k.RestartPG.SetEnabled(running && m.srv != nil && !m.srv.External())
	if m.pgDown != "" {
		k.RestartPG.SetHelp("R", m.st.Words.T("start PostgreSQL again"))
	} else {
		k.RestartPG.SetHelp("R", m.st.Words.T("restart PostgreSQL"))
	}
	k.Faster.SetEnabled(running && m.speed < len(speeds)-1)
	k.Slower.SetEnabled(running && m.speed > 0)
	if m.brokerDown {
		k.Broker.SetHelp("b", m.st.Words.T("broker up"))
	} else {
		k.Broker.SetHelp("b", m.st.Words.T("broker down"))
	}
	if m.playing {
		k.Play.SetHelp("space", m.st.Words.T("pause"))
	} else {
		k.Play.SetHelp("space", m.st.Words.T("run"))
	}
	switch {
	case m.compareScene == m.scene.Name && !m.compareView:
		k.Compare.SetHelp("v", m.st.Words.T("own mode"))
	case m.settings.Mode != "compare":
		k.Compare.SetHelp("v", m.st.Words.T("compare mode"))
	case m.compareView:
		k.Compare.SetHelp("v", m.st.Words.T("main view"))
	default:
		k.Compare.SetHelp("v", m.st.Words.T("compare view"))
	}
	m.updateLessonKeys()
	if m.opts.Play {
		// play needs no keys: space pauses it, q quits.
		for _, b := range k.all() {
			b.SetEnabled(false)
		}
		k.Quit.SetEnabled(true)
		k.Play.SetEnabled(m.phase == phaseRunning)
		if m.play.paused {
			k.Play.SetHelp("space", m.st.Words.T("resume"))
		} else {
			k.Play.SetHelp("space", m.st.Words.T("pause"))
		}
	}
}

// rect is a region of the screen.
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool {
	return r.w > 0 && x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h
}

// screen is where each pane goes at the current size.
type screen struct {
	status, body, pipeline, tables, timeline, guarantees, metrics, lesson, caption, help rect
	compact                                                                              bool // guarantees as a summary strip, no right column
}

func (m Model) size() (int, int) {
	if m.w == 0 || m.h == 0 {
		return minWidth, minHeight // before the first WindowSizeMsg
	}
	return m.w, m.h
}

func (m Model) helpView() string {
	if m.showStory {
		// Over the story, its own keys are the only ones that work.
		return m.help.View(m.story)
	}
	if m.opts.Play {
		return m.help.View(combinedHelp{global: m.keys, width: m.help.Width()})
	}
	v := m.help.View(combinedHelp{global: m.keys, pane: m.focusedHelp(), width: m.help.Width()})
	if m.help.ShowAll && len(m.lesson.psql) > 0 {
		// The full help also says how to look at the same tables with psql.
		lead := m.st.Words.T("from another terminal: ")
		v += "\n" + m.st.App.Muted.Render(lead+strings.Join(m.lesson.psql, "\n"+strings.Repeat(" ", ansi.StringWidth(lead))))
	}
	return v
}

func (m Model) focusedHelp() help.KeyMap {
	switch {
	case m.showPicker:
		return m.picker
	case m.showChooser:
		return m.chooser
	case m.showStory:
		return m.story
	case m.compareView:
		return m.timeline
	case m.focus == focusLesson:
		return m.lesson
	case m.focus == focusTables:
		return m.tables
	}
	return m.timeline
}

func (m Model) layout() screen {
	W, H := m.size()
	var s screen
	s.status = rect{0, 0, W, 1}
	hh := 1
	if m.help.ShowAll {
		hh = len(strings.Split(m.helpView(), "\n"))
	}
	hh = min(hh, H-1) // the status line stays
	s.help = rect{0, H - hh, W, hh}
	if H-1-hh < minBodyUnderHelp {
		// A full help this tall would squeeze the panes below what they
		// can draw: the panes keep their room and render draws the help
		// over the foot of the body.
		hh = 1
	}
	s.body = rect{0, 1, W, H - 1 - hh}
	if m.opts.Play {
		// play's caption sits over the help line, the size of its text.
		ch := min(3, len(m.captionLines(W)))
		s.caption = rect{0, H - hh - ch, W, ch}
		s.body.h -= ch
	}
	if m.showPicker {
		return s
	}
	y := 1
	bodyH := s.body.h
	if m.compareView {
		return s
	}
	if m.lesson.lesson != nil {
		return m.lessonLayout(s)
	}
	ph := m.pipeline.Height(max(3, min(13, bodyH/3)))
	s.pipeline = rect{0, y, W, ph}
	y += ph
	rest := bodyH - ph
	if W >= 110 {
		// Pipeline on top; tables beside the guarantees, metrics and
		// lesson; the timeline full width under them, its explanations
		// being the longest text on screen.
		rw := 44
		if W >= 150 {
			rw = 56
		}
		lw := W - rw - 1
		tlh := max(8, rest/3)
		mid := rest - tlh
		s.tables = rect{0, y, lw, mid}
		s.timeline = rect{0, y + mid, W, tlh}
		gh := min(m.guarantees.Height(rw), mid)
		s.guarantees = rect{lw + 1, y, rw, gh}
		left := mid - gh
		if mh := m.metrics.Height(); left >= mh {
			s.metrics = rect{lw + 1, y + gh, rw, mh}
			left -= mh
		}
		if left >= 3 {
			s.lesson = rect{lw + 1, y + mid - left, rw, left}
		}
		return s
	}
	s.compact = true
	gh := min(1+2*len(m.settings.Pipelines()), rest/3)
	s.guarantees = rect{0, y, W, gh}
	y += gh
	rest -= gh
	th := rest / 2
	s.tables = rect{0, y, W, th}
	s.timeline = rect{0, y + th, W, rest - th}
	return s
}

// resize gives each pane its size; the tables pane reads again when the
// number of rows that fit changed.
func (m *Model) resize() tea.Cmd {
	l := m.layout()
	W, _ := m.size()
	m.boot.SetSize(W, l.body.h+l.help.h)
	m.pipeline.SetSize(l.pipeline.w, l.pipeline.h)
	before := m.tables.visible()
	m.tables.SetSize(l.tables.w, l.tables.h)
	m.timeline.SetSize(l.timeline.w, l.timeline.h)
	if m.compareView {
		th := max(5, l.body.h-m.compareTopHeight(l.body.h))
		m.timeline.SetSize(W, th)
	}
	m.guarantees.SetSize(l.guarantees.w, l.guarantees.h)
	m.metrics.SetSize(l.metrics.w, l.metrics.h)
	m.lesson.SetSize(l.lesson.w, l.lesson.h)
	m.picker.SetSize(l.body.w, l.body.h)
	m.chooser.SetSize(l.body.w, l.body.h)
	if m.showStory {
		m.story.SetSize(l.body.w, l.body.h)
	}
	m.setFocus()
	m.updateKeys()
	if m.sim != nil && l.tables.h > 0 && m.tables.visible() != before {
		return fetchCmd(m.sim, m.simID, 0, m.tables.request())
	}
	return nil
}

func (m Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "outboxlab"
	return v
}

// render draws the whole screen as text.
func (m Model) render() string {
	W, H := m.size()
	if W < minWidth || H < minHeight {
		return tooSmall
	}
	if m.phase != phaseRunning {
		return m.boot.View()
	}
	l := m.layout()
	var body string
	switch {
	case m.showPicker:
		body = m.picker.View()
	case m.showStory:
		body = m.story.View()
	case m.compareView:
		body = m.compareBody(l.body)
	case m.lesson.lesson != nil:
		body = m.lessonBody(l)
	default:
		body = m.mainBody(l)
	}
	if m.showChooser {
		body = overlay(body, m.chooser.View(), l.body.w, l.body.h)
	}
	helpLines := m.helpView()
	if l.caption.h > 0 {
		body += "\n" + m.captionView(l.caption.w, l.caption.h)
	}
	out := m.statusView(W) + "\n" + body
	if over := l.help.y; over < l.body.y+l.body.h {
		out = strings.Join(strings.Split(out, "\n")[:over], "\n")
	}
	return out + "\n" + block(helpLines, W, l.help.h)
}

func (m Model) mainBody(l screen) string {
	gutter := m.st.Pane.Gutter.Render("│")
	parts := []string{m.pipeline.View()}
	if l.compact {
		parts = append(parts, m.guarantees.compactView(), m.tables.View(), m.timeline.View())
		return strings.Join(parts, "\n")
	}
	right := []string{m.guarantees.View()}
	if l.metrics.h > 0 {
		right = append(right, m.metrics.View())
	}
	if l.lesson.h > 0 {
		right = append(right, m.lesson.View())
	}
	parts = append(parts,
		joinColumns(gutter, m.tables.View(), block(strings.Join(right, "\n"), l.guarantees.w, l.tables.h)),
		m.timeline.View())
	return strings.Join(parts, "\n")
}

// compareTopHeight is the height of the side-by-side part of compare view.
func (m Model) compareTopHeight(bodyH int) int {
	stack := 1
	for _, k := range m.settings.Pipelines() {
		stack = max(stack, m.pipeline.stack(k))
	}
	g := 0
	for _, k := range m.settings.Pipelines() {
		for _, o := range m.guarantees.oracles {
			if o.Pipeline == k {
				g = max(g, len(m.guarantees.pipelineLines(o, (m.w-1)/2)))
			}
		}
	}
	return min(bodyH-5, 1+2*stack+1+max(g, 4))
}

// compareBody puts the naive and the outbox pipeline side by side (the same
// requests and faults went to both), the timeline under them.
func (m Model) compareBody(body rect) string {
	W := body.w
	cw := (W - 1) / 2
	top := m.compareTopHeight(body.h)
	stack := 1
	for _, k := range m.settings.Pipelines() {
		stack = max(stack, m.pipeline.stack(k))
	}
	rows := min(2*stack, max(1, top-5))
	var cols []string
	for i, k := range m.settings.Pipelines() {
		w := cw
		if i == 1 {
			w = W - cw - 1
		}
		title := paneTitle(m.st, false, strings.ToUpper(k[:1])+k[1:], pipelineBlurb(k), w)
		pipe := m.pipeline.viewPipeline(k, w, rows, false)
		g := m.guarantees.viewPipeline(k, w, top-1-rows)
		cols = append(cols, block(title+"\n"+pipe+"\n"+g, w, top))
	}
	return joinColumns(m.st.Pane.Gutter.Render("│"), cols...) + "\n" + m.timeline.View()
}

func pipelineBlurb(kind string) string {
	if kind == "naive" {
		return "dual write: commit and publish"
	}
	return "outbox row in the same transaction"
}

func (m Model) statusView(W int) string {
	st := m.st.App
	sep := st.Status.Render(" │ ")
	wide := W >= 110
	w := m.st.Words
	kv := func(k, v string) string {
		if !wide {
			return st.StatusValue.Render(v)
		}
		return st.StatusKey.Render(w.Word(k)+" ") + st.StatusValue.Render(v)
	}
	play := w.T("⏸ paused")
	if m.playing || m.opts.Play && !m.play.paused {
		play = w.T("▶ running")
	}
	if m.opts.Play && !m.play.paused {
		play = w.T("▶ playing")
	}
	if m.busy {
		play += "…"
	}
	seed := m.opts.Seed
	if seed == 0 {
		seed = m.settings.Seed
	}
	parts := []string{
		st.Logo.Render("outboxlab"),
		kv("scene", m.scene.Name),
		st.StatusValue.Render(play),
		kv("time", clock(m.now)),
		kv("mode", string(m.settings.Mode)),
		kv("speed", fmt.Sprintf("%g/s", speeds[m.speed])),
		st.StatusKey.Render(w.T("seed")+" ") + st.StatusValue.Render(fmt.Sprint(seed)),
	}
	if m.lesson.lesson != nil {
		parts = slices.Insert(parts, 1, kv("lesson", m.lesson.lesson.Name))
	}
	if n := len(m.scriptSteps()); n > 0 {
		parts = append(parts, st.StatusKey.Render(w.T("script")+" ")+st.StatusValue.Render(fmt.Sprintf("%d/%d", m.pos.Script, n)))
	}
	// What needs the learner comes first, right after the name, so a narrow
	// terminal cuts the run's details instead.
	msg := ""
	switch {
	case m.simErr != nil:
		msg = st.Error.Render(oneLine(sayError(m.simErr, m.st.Words)))
	case m.err != nil:
		msg = st.Error.Render(oneLine(sayError(m.err, m.st.Words)))
	case m.notice != "":
		msg = st.Notice.Render(m.notice)
	}
	if msg != "" {
		parts = slices.Insert(parts, 1, msg)
	}
	return fitLine(strings.Join(parts, sep), W)
}

// sayError is an error as the learner reads it: one the simulator can say
// as a catalog sentence in their language, any other as it is.
func sayError(err error, w *catalog.Printer) string {
	if down := (*sim.PostgresDownError)(nil); errors.As(err, &down) {
		return down.Say().In(w)
	}
	if script := (*sim.ScriptError)(nil); errors.As(err, &script) && script.Say.Key != "" {
		return script.Say.In(w)
	}
	return err.Error()
}

func clock(t time.Time) string {
	if t.IsZero() {
		return "--:--:--.---"
	}
	return t.Format("15:04:05.000")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// overlay draws fg centred over bg (both w×h text): two layers of one
// lipgloss canvas.
func overlay(bg, fg string, w, h int) string {
	x := max(0, (w-min(lipgloss.Width(fg), w))/2)
	y := max(0, (h-lipgloss.Height(fg))/2)
	c := lipgloss.NewCanvas(w, h)
	c.Compose(lipgloss.NewCompositor(lipgloss.NewLayer(bg), lipgloss.NewLayer(fg).X(x).Y(y).Z(1)))
	return c.Render()
}
