package ui

import (
	"fmt"
	"maps"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/screen"
	"github.com/outboxlab/outboxlab/ui/overlay/chaosrun"
)

// lessonPage is a guided lesson: a course of lessons, each a few steps
// with checks, then a quiz. The root owns the simulator and the action
// queue, so a step's checks are evaluated as one more queued action
// (lessons.Step.Eval reads the actors' states, which only holds while no
// other operation runs) right after each action's result comes back. The
// lesson pane draws it; the page holds the course.
type lessonPage struct {
	// back is the free simulator the lesson was opened from (its /
	// picker): esc goes back to it. Nil for --lesson and play, where an
	// esc pressed once too often must not close the lesson.
	back   *simulatorPage
	course courseState
	found  lessons.Findings // what the step found outside the simulator (its chaos run)
}

// courseState is the course, the timeline's length when the current step
// began, and the learner's saved progress.
type courseState struct {
	all      []*lessons.Lesson
	since    int
	progress *lessons.Progress
}

func (p *lessonPage) open(c pageCtx, l *lessons.Lesson) {
	pos, next := "", (*lessons.Lesson)(nil)
	for i, c := range p.course.all {
		if c.Name == l.Name { // the picker's course is loaded apart
			pos = fmt.Sprintf("%d/%d", i+1, len(p.course.all))
			if i+1 < len(p.course.all) {
				next = p.course.all[i+1]
			}
		}
	}
	c.run.setScene(l.Scene)
	var seed uint64
	if p.course.progress != nil {
		seed = p.course.progress.QuizSeed
	}
	c.panes.lesson.SetLesson(l.WithQuizOrder(seed), pos, next)
	c.run.setSettings(l.Steps[0].Settings)
	c.run.setFocus(focusTimeline)
	c.run.updateKeys()
}

// checkAction evaluates the current step's checks; mark says the step
// begins now.
func (p *lessonPage) checkAction(c pageCtx, mark bool) action {
	return action{kind: actEval, check: c.panes.lesson.Current(), mark: mark, since: p.course.since, found: p.found}
}

// startChecks begins the current step on the running simulator: the
// timeline entries so far do not count toward it.
func (p *lessonPage) startChecks(c pageCtx) tea.Cmd {
	// The session plays this step's script next (a played lesson's
	// solution; none for a learner), then the step's checks begin.
	c.state.push(action{kind: actScript, steps: c.run.script()})
	p.found = lessons.Findings{}
	return c.run.enqueue(p.checkAction(c, true))
}

// checked takes an evaluation of the step's checks.
func (p *lessonPage) checked(c pageCtx, a action, r evalResult) tea.Cmd {
	l := &c.panes.lesson
	if a.check != l.Current() || l.Place() != lessons.PlaceStep {
		return nil // stale: the step moved on
	}
	if a.mark {
		p.course.since = r.since
	}
	l.SetOutcomes(r.outcomes, r.passed)
	l.SetDead(r.dead)
	if !r.passed {
		return nil
	}
	// A run the learner started goes on until nothing moves, as the task
	// says; the why is on screen meanwhile.
	c.run.updateKeys()
	if p.course.progress != nil {
		p.course.progress.MarkStep(l.Lesson().Name, l.Step()+1)
		return p.saveProgress()
	}
	return nil
}

// next is enter: the next step once this one passed, the quiz after
// the last step, answering and moving through the quiz, and at the end the
// next lesson of the course.
func (p *lessonPage) next(c pageCtx) tea.Cmd {
	l, run := &c.panes.lesson, c.run
	switch {
	case l.OnIntro():
		l.CloseIntro()
	case l.Place() == lessons.PlacePassed:
		run.closeChaos() // the run's table was read: the step is done
		if l.Step()+1 < len(l.Lesson().Steps) {
			l.StartStep(l.Step() + 1)
			run.updateKeys()
			if l.Current().Fresh {
				return run.reset()
			}
			l.CarryOver(run.actors())
			return tea.Batch(p.startChecks(c), run.resize())
		}
		l.StartQuiz()
		run.setFocus(focusLesson)
	case l.Place() == lessons.PlaceQuiz:
		if !l.Answered() {
			l.Answer()
			break
		}
		if !l.NextQuestion() && p.course.progress != nil {
			p.course.progress.MarkDone(l.Lesson().Name, time.Now())
			run.updateKeys()
			return tea.Batch(p.saveProgress(), run.resize())
		}
	case l.Place() == lessons.PlaceDone:
		if l.Next() != nil {
			p.open(c, l.Next())
			return run.reset()
		}
	}
	run.updateKeys()
	return run.resize()
}

// restartStep goes back to the latest step that starts on a fresh
// simulator: a later step builds on what the earlier ones did.
func (p *lessonPage) restartStep(c pageCtx) {
	l := &c.panes.lesson
	i := l.Step()
	if !l.OnStep() {
		i = len(l.Lesson().Steps) - 1
	}
	for i > 0 && !l.Lesson().Steps[i].Fresh {
		i--
	}
	l.StartStep(i)
}

// progressSavedMsg is Progress.Save's outcome.
type progressSavedMsg struct{ err error }

// saveProgress writes a copy of the progress, so the command reads nothing
// Update may change.
func (p *lessonPage) saveProgress() tea.Cmd {
	saved := *p.course.progress
	saved.Lessons = maps.Clone(p.course.progress.Lessons)
	return func() tea.Msg { return progressSavedMsg{saved.Save()} }
}

// script is none: a learner's lesson runs on the scene's settings, never
// its script (a played lesson's solution is play's: playPage.script).
func (p *lessonPage) script(pageCtx) []scenes.Step { return nil }

// enable turns on the lesson's keys where they apply.
func (p *lessonPage) enable(c pageCtx) {
	k, w := c.keys, c.st.Words
	l := c.panes.lesson
	on := l.Lesson() != nil && c.run.booted()
	k.Hint.SetEnabled(on && l.Place() == lessons.PlaceStep && l.Current().Hint != "")
	k.Choose.SetEnabled(on && l.Place() == lessons.PlaceQuiz && !l.Answered())
	k.Leave.SetEnabled(on && p.back != nil)
	next := ""
	switch {
	case l.OnIntro():
		next = "begin step 1"
	case l.Place() == lessons.PlacePassed:
		next = "next step"
		if l.Step()+1 >= len(l.Lesson().Steps) {
			next = "quiz"
		}
	case l.Place() == lessons.PlaceQuiz:
		next = "answer"
		if l.Answered() {
			next = "next question"
			if l.Question()+1 >= len(l.Lesson().Quiz) {
				next = "finish"
			}
		}
	case l.Place() == lessons.PlaceDone:
		if l.Next() != nil {
			next = "next lesson"
		}
	}
	k.Next.SetEnabled(on && next != "")
	k.Next.SetHelp("enter", w.Word(next))
	if l.HintShown() {
		k.Hint.SetHelp("h", w.T("hide hint"))
	} else {
		k.Hint.SetHelp("h", w.T("hint"))
	}
	if l.Lesson() != nil {
		k.Scenes.SetEnabled(false)
		k.Reset.SetHelp("r", w.T("restart step"))
	}
}

// layout places the panes with a lesson open. On a wide terminal (110
// columns and more) the lesson stands beside the guarantees, the tables and
// the timeline. On a narrower one it takes most of the body, at least
// lessonRows, between the pipeline and one data pane: the one the step
// names (lesson.Pane.Watch), which tab changes.
func (p *lessonPage) layout(c pageCtx, s regions) regions {
	ps := c.panes
	W := s.body.w
	y, bodyH := s.body.y, s.body.h
	s.compact = true
	if ps.lesson.OnIntro() {
		// The introduction is read before anything runs: it takes the body.
		s.lesson = s.body
		return s
	}
	if W >= wideLesson {
		ph := ps.pipeline.Height(max(3, min(13, bodyH/3)))
		s.pipeline = rect{0, y, W, ph}
		y += ph
		rest := bodyH - ph
		// The lesson pane grows with the terminal (two fifths of it, 50
		// to 100 columns): a check line or a query is read whole there.
		rw := max(50, min(W*2/5, 100))
		lw := W - rw - 1
		gh := min(ps.guarantees.CompactHeight(lw), rest/3)
		if ps.lesson.Watch() == lessons.PaneMetrics {
			// The step reads the metrics: they take the guarantees' place.
			gh = min(ps.metrics.Height(), rest/3)
			s.metrics = rect{0, y, lw, gh}
		} else {
			s.guarantees = rect{0, y, lw, gh}
		}
		tlh := max(6, (rest-gh)/2)
		s.tables = rect{0, y + gh, lw, rest - gh - tlh}
		s.timeline = rect{0, y + rest - tlh, lw, tlh}
		s.lesson = rect{lw + 1, y, rw, rest}
		return s
	}
	// The pipeline on one line per actor at 80×24 (a fifth of the body),
	// on two from 30 rows: the lesson's text needs the rows.
	ph := ps.pipeline.Height(max(ps.pipeline.OneLineHeight(), min(7, bodyH/5)))
	s.pipeline = rect{0, y, W, ph}
	y += ph
	rest := bodyH - ph
	lh := min(rest-dataRows, max(lessonRows+2, rest*2/3))
	data := rect{0, y + lh, W, rest - lh}
	s.lesson = rect{0, y, W, lh}
	switch ps.lesson.Watch() {
	case lessons.PaneGuarantees:
		s.guarantees = data
	case lessons.PaneTables:
		s.tables = data
	case lessons.PaneMetrics:
		s.metrics = data
	default:
		s.timeline = data
	}
	return s
}

// The narrow lesson layout: below wideLesson columns the lesson keeps at
// least lessonRows (its title and twelve lines of text: a step, its task,
// checks and keys at 80×24), the data pane under it at least dataRows.
const (
	wideLesson = 110
	lessonRows = 13
	dataRows   = 4
)

// body draws the body as layout places it.
func (p *lessonPage) body(c pageCtx, l regions) string {
	ps := c.panes
	if ps.lesson.OnIntro() {
		return ps.lesson.View()
	}
	parts := []string{ps.pipeline.View()}
	if l.lesson.x > 0 {
		var left []string
		if l.metrics.h > 0 {
			left = append(left, ps.metrics.View())
		} else {
			left = append(left, screen.Block(ps.guarantees.CompactView(), l.guarantees.w, l.guarantees.h))
		}
		if l.tables.h > 0 {
			left = append(left, ps.tables.View())
		}
		left = append(left, ps.timeline.View())
		gutter := c.st.Pane.Gutter.Render("│")
		parts = append(parts, screen.JoinColumns(gutter, screen.Block(strings.Join(left, "\n"), l.timeline.w, l.lesson.h), ps.lesson.View()))
		return strings.Join(parts, "\n")
	}
	parts = append(parts, ps.lesson.View())
	switch {
	case l.tables.h > 0:
		parts = append(parts, ps.tables.View())
	case l.guarantees.h > 0:
		parts = append(parts, screen.Block(ps.guarantees.CompactView(), l.guarantees.w, l.guarantees.h))
	case l.metrics.h > 0:
		parts = append(parts, ps.metrics.View())
	default:
		parts = append(parts, ps.timeline.View())
	}
	return strings.Join(parts, "\n")
}

// prepare runs a fresh simulation on the current step's settings (the
// scene's once the steps are done); the step's checks begin when it is
// built (ready), so the step starts again from the top.
func (p *lessonPage) prepare(c pageCtx) (scenes.Settings, []scenes.Step) {
	l := &c.panes.lesson
	p.course.since = 0
	if l.OnStep() {
		l.StartStep(l.Step())
	}
	if st := l.Current(); st != nil {
		return st.Settings, nil
	}
	set := c.run.scene().Settings
	if c.opts.Mode != "" {
		set.Mode = scenes.Mode(c.opts.Mode)
	}
	return set, nil
}

func (p *lessonPage) ready(c pageCtx) tea.Cmd {
	if c.panes.lesson.Place() != lessons.PlaceStep {
		return nil
	}
	return p.startChecks(c)
}

func (p *lessonPage) key(c pageCtx, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k, l, run := c.keys, &c.panes.lesson, c.run
	if l.OnIntro() && !key.Matches(msg, k.Next) {
		if l.ScrollKey(msg) {
			c.panes.lesson, _ = c.panes.lesson.Update(msg) // the page scrolls
			return nil, true
		}
		if !readingKey(k, msg) {
			// A key that works the simulator turns the page first: the
			// learner who knows the lesson starts at once.
			l.CloseIntro()
			run.updateKeys()
			cmd := run.resize()
			if more, ok := p.key(c, msg); ok {
				return tea.Batch(cmd, more), true
			}
			return cmd, false
		}
	}
	switch {
	case key.Matches(msg, k.Hint):
		if st := l.Current(); st != nil {
			l.SetKeyHint(l.StepKeyHint(st, run.actors(), run.settings()))
		}
		l.ToggleHint()
		run.updateKeys()
		return run.resize(), true
	case key.Matches(msg, k.Next):
		return p.next(c), true
	case key.Matches(msg, k.NextPane) && c.panes.pipeline.Width() < wideLesson && l.Lesson() != nil:
		// One data pane under the lesson: tab shows the next one, and
		// the keys that scroll go to it (to the lesson for the figures).
		l.NextWatch()
		switch l.Watch() {
		case lessons.PaneTables:
			run.setFocus(focusTables)
		case lessons.PaneTimeline:
			run.setFocus(focusTimeline)
		default:
			run.setFocus(focusLesson)
		}
		return run.resize(), true
	case key.Matches(msg, k.Choose):
		l.Choose(int(msg.String()[0] - '1'))
		return nil, true
	case key.Matches(msg, k.Compare):
		if run.settings().Mode == scenes.Compare {
			run.setCompareView(!run.compareView())
			return run.resize(), true
		}
		c.state.say(c.st.Words.T("a lesson keeps its own mode: compare mode is for scenes, outside lessons"))
		return nil, true
	case key.Matches(msg, k.Reset):
		p.restartStep(c)
		return run.reset(), true
	case key.Matches(msg, k.Leave) && p.back != nil:
		return run.leaveLesson(p.back), true
	}
	return nil, false
}

// readingKey says a key leaves the introduction's page on screen: it
// opens the help, leaves the lesson or quits.
func readingKey(k *KeyMap, msg tea.KeyPressMsg) bool {
	return key.Matches(msg, k.Help, k.Quit, k.Leave)
}

func (p *lessonPage) message(c pageCtx, msg tea.Msg) (tea.Cmd, bool) {
	if msg, ok := msg.(chaosrun.DoneMsg); ok {
		if msg.Err != nil || p.chaosStep(c) == nil {
			return nil, true
		}
		// The run's table is the step's evidence: check it now.
		p.found.Chaos = &msg.Report
		return c.run.enqueue(p.checkAction(c, false)), true
	}
	if msg, ok := msg.(progressSavedMsg); ok {
		if msg.err != nil {
			c.state.say(c.st.Words.T("progress not saved: %s", screen.OneLine(msg.err.Error())))
		}
		return nil, true
	}
	return nil, false
}

// done checks the step after every action: its result is checked against
// the simulator before anything else runs.
func (p *lessonPage) done(c pageCtx, msg actionDoneMsg) tea.Cmd {
	a := msg.act
	if msg.eval != nil && msg.err == nil {
		return p.checked(c, a, *msg.eval)
	}
	if a.kind != actEval && a.kind != actScript && c.panes.lesson.Place() == lessons.PlaceStep {
		c.state.pushFirst(p.checkAction(c, false))
	}
	return nil
}

func (p *lessonPage) status(c pageCtx) (string, string) { return "", c.panes.lesson.Lesson().Name }

// chaosStep is the current step when its task is a chaos run.
func (p *lessonPage) chaosStep(c pageCtx) *lessons.Step {
	if st := c.panes.lesson.Current(); st != nil && st.Chaos > 0 && c.panes.lesson.Place() == lessons.PlaceStep {
		return st
	}
	return nil
}
