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
)

// lessonPage is a guided lesson: a course of lessons, each a few steps
// with checks, then a quiz. The root owns the simulator and the action
// queue, so a step's checks are evaluated as one more queued action
// (lessons.Step.Eval reads the actors' states, which only holds while no
// other operation runs) right after each action's result comes back. The
// lesson pane draws it; the page holds the course.
type lessonPage struct {
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

// openLesson shows a lesson at its first step; the simulator for it is
// built by buildSim, when the server is up. The free simulator's page
// becomes a lesson page; play's plays the lesson.
func (m *Model) openLesson(l *lessons.Lesson) {
	p := m.lessonPage()
	if p == nil {
		p = &lessonPage{}
		m.page, _ = m.page.learn(p)
	}
	p.open(m, l)
}

// learnCourse opens a course in the page, as --lesson and the picker do:
// a lesson of the learner's own keeps their saved progress.
func (m *Model) learnCourse(course []*lessons.Lesson) {
	lp := &lessonPage{course: courseState{all: course}}
	next, own := m.page.learn(lp)
	if own {
		progress, err := lessons.LoadProgress(m.opts.ProgressPath)
		if err != nil {
			m.notice = m.st.Words.T("progress will not be saved: %s", err.Error())
		}
		lp.course.progress = progress
	}
	m.page = next
}

// lessonPage is the page's lesson, nil outside lessons.
func (m Model) lessonPage() *lessonPage { return m.page.shownLesson() }

func (p *lessonPage) open(m *Model, l *lessons.Lesson) {
	pos, next := "", (*lessons.Lesson)(nil)
	for i, c := range p.course.all {
		if c == l {
			pos = fmt.Sprintf("%d/%d", i+1, len(p.course.all))
			if i+1 < len(p.course.all) {
				next = p.course.all[i+1]
			}
		}
	}
	if sc, err := scenes.Find(m.all, l.Scene); err == nil {
		m.scene = sc
	}
	var seed uint64
	if p.course.progress != nil {
		seed = p.course.progress.QuizSeed
	}
	m.lesson.setLesson(l.WithQuizOrder(seed), pos, next)
	m.settings = l.Steps[0].Settings
	m.focus = focusTimeline
	m.setFocus()
	m.updateKeys()
}

// checkAction evaluates the current step's checks; mark says the step
// begins now.
func (p *lessonPage) checkAction(m *Model, mark bool) action {
	return action{kind: actEval, check: m.lesson.current(), mark: mark, since: p.course.since, found: p.found}
}

// startChecks begins the current step on the running simulator: the
// timeline entries so far do not count toward it.
func (p *lessonPage) startChecks(m *Model) tea.Cmd {
	// The session plays this step's script next (a played lesson's
	// solution; none for a learner), then the step's checks begin.
	m.queue = append(m.queue, action{kind: actScript, steps: m.page.script(*m)})
	p.found = lessons.Findings{}
	return m.enqueue(p.checkAction(m, true))
}

// checked takes an evaluation of the step's checks.
func (p *lessonPage) checked(m *Model, a action, r evalResult) tea.Cmd {
	if a.check != m.lesson.current() || m.lesson.stage != stageStep {
		return nil // stale: the step moved on
	}
	if a.mark {
		p.course.since = r.since
	}
	m.lesson.setOutcomes(r.outcomes, r.passed)
	m.lesson.dead = r.dead
	m.lesson.clamp()
	if !r.passed {
		return nil
	}
	// A run the learner started goes on until nothing moves, as the task
	// says; the why is on screen meanwhile.
	m.updateKeys()
	if p.course.progress != nil {
		p.course.progress.MarkStep(m.lesson.lesson.Name, m.lesson.step+1)
		return p.saveProgress()
	}
	return nil
}

// next is enter: the next step once this one passed, the quiz after
// the last step, answering and moving through the quiz, and at the end the
// next lesson of the course.
func (p *lessonPage) next(m *Model) tea.Cmd {
	l := &m.lesson
	switch l.stage {
	case stagePassed:
		m.overlays.pop(overlayChaos) // the run's table was read: the step is done
		if l.step+1 < len(l.lesson.Steps) {
			l.startStep(l.step + 1)
			m.updateKeys()
			if l.current().Fresh {
				return m.reset()
			}
			l.carryOver(m.actors)
			return tea.Batch(p.startChecks(m), m.resize())
		}
		l.startQuiz()
		m.focus = focusLesson
		m.setFocus()
	case stageQuiz:
		if !l.answered {
			l.answer()
			break
		}
		if !l.nextQuestion() && p.course.progress != nil {
			p.course.progress.MarkDone(l.lesson.Name, time.Now())
			m.updateKeys()
			return tea.Batch(p.saveProgress(), m.resize())
		}
	case stageDone:
		if l.next != nil {
			m.openLesson(l.next)
			return m.reset()
		}
	}
	m.updateKeys()
	return m.resize()
}

// restartStep goes back to the latest step that starts on a fresh
// simulator: a later step builds on what the earlier ones did.
func (p *lessonPage) restartStep(m *Model) {
	i := m.lesson.step
	if m.lesson.stage > stagePassed {
		i = len(m.lesson.lesson.Steps) - 1
	}
	for i > 0 && !m.lesson.lesson.Steps[i].Fresh {
		i--
	}
	m.lesson.startStep(i)
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
func (p *lessonPage) script(Model) []scenes.Step { return nil }

// nextFocus moves the focus to the next pane on screen.
func (m *Model) nextFocus() {
	l := m.layout()
	for range focusCount {
		m.focus = (m.focus + 1) % focusCount
		r := map[focus]rect{focusTables: l.tables, focusTimeline: l.timeline, focusLesson: l.lesson}[m.focus]
		if r.h > 0 {
			break
		}
	}
	m.setFocus()
	m.updateKeys()
}

// enable turns on the lesson's keys where they apply.
func (p *lessonPage) enable(m *Model) {
	k := &m.keys
	l := m.lesson
	on := l.lesson != nil && m.phase == phaseRunning
	k.Hint.SetEnabled(on && l.stage == stageStep && l.current().Hint != "")
	k.Choose.SetEnabled(on && l.stage == stageQuiz && !l.answered)
	next := ""
	switch l.stage {
	case stagePassed:
		next = "next step"
		if l.step+1 >= len(l.lesson.Steps) {
			next = "quiz"
		}
	case stageQuiz:
		next = "answer"
		if l.answered {
			next = "next question"
			if l.question+1 >= len(l.lesson.Quiz) {
				next = "finish"
			}
		}
	case stageDone:
		if l.next != nil {
			next = "next lesson"
		}
	}
	k.Next.SetEnabled(on && next != "")
	k.Next.SetHelp("enter", m.st.Words.Word(next))
	if l.showHint {
		k.Hint.SetHelp("h", m.st.Words.T("hide hint"))
	} else {
		k.Hint.SetHelp("h", m.st.Words.T("hint"))
	}
	if l.lesson != nil {
		k.Scenes.SetEnabled(false)
		k.Reset.SetHelp("r", m.st.Words.T("restart step"))
	}
}

// lessonLayout places the panes with a lesson open: the lesson beside the
// tables and timeline on a wide terminal; under the pipeline, above a short
// timeline, on a narrow one (no tables: the checks say what matters).
func (p *lessonPage) layout(m Model, s screen) screen {
	W := s.body.w
	y, bodyH := s.body.y, s.body.h
	ph := m.pipeline.Height(max(3, min(13, bodyH/3)))
	if W < 110 {
		ph = m.pipeline.Height(max(3, min(7, bodyH/4)))
	}
	s.pipeline = rect{0, y, W, ph}
	y += ph
	rest := bodyH - ph
	if W >= 110 {
		// The lesson pane grows with the terminal (two fifths of it, 50
		// to 100 columns): a check line or a query is read whole there.
		rw := max(50, min(W*2/5, 100))
		lw := W - rw - 1
		gh := min(m.guarantees.compactHeight(lw), rest/3)
		tlh := max(6, (rest-gh)/2)
		s.compact = true
		s.guarantees = rect{0, y, lw, gh}
		s.tables = rect{0, y + gh, lw, rest - gh - tlh}
		s.timeline = rect{0, y + rest - tlh, lw, tlh}
		s.lesson = rect{lw + 1, y, rw, rest}
		return s
	}
	s.compact = true
	tlh := max(3, rest/4)
	if m.lesson.namesGuarantees() {
		// The step sends the learner to the Guarantees figures: their
		// summary takes the timeline's place.
		gh := min(m.guarantees.compactHeight(W), rest/2)
		s.lesson = rect{0, y, W, rest - gh}
		s.guarantees = rect{0, y + rest - gh, W, gh}
		return s
	}
	if len(m.lesson.named()) > 0 {
		// The step names columns of the outbox: the table takes the
		// timeline's place, tall enough for a few rows.
		th := max(tlh, min(6, rest/2))
		s.lesson = rect{0, y, W, rest - th}
		s.tables = rect{0, y + rest - th, W, th}
		return s
	}
	s.lesson = rect{0, y, W, rest - tlh}
	s.timeline = rect{0, y + rest - tlh, W, tlh}
	return s
}

// body draws the body as layout places it.
func (p *lessonPage) body(m Model, l screen) string {
	parts := []string{m.pipeline.View()}
	if l.lesson.x > 0 {
		left := []string{block(m.guarantees.compactView(), l.guarantees.w, l.guarantees.h)}
		if l.tables.h > 0 {
			left = append(left, m.tables.View())
		}
		left = append(left, m.timeline.View())
		gutter := m.st.Pane.Gutter.Render("│")
		parts = append(parts, joinColumns(gutter, block(strings.Join(left, "\n"), l.timeline.w, l.lesson.h), m.lesson.View()))
		return strings.Join(parts, "\n")
	}
	if l.tables.h > 0 {
		return strings.Join(append(parts, m.lesson.View(), m.tables.View()), "\n")
	}
	if l.guarantees.h > 0 {
		return strings.Join(append(parts, m.lesson.View(), block(m.guarantees.compactView(), l.guarantees.w, l.guarantees.h)), "\n")
	}
	parts = append(parts, m.lesson.View(), m.timeline.View())
	return strings.Join(parts, "\n")
}

// prepare runs a fresh simulation on the current step's settings (the
// scene's once the steps are done); the step's checks begin when it is
// built (ready), so the step starts again from the top.
func (p *lessonPage) prepare(m *Model) (scenes.Settings, []scenes.Step) {
	p.course.since = 0
	if m.lesson.stage <= stagePassed {
		m.lesson.startStep(m.lesson.step)
	}
	if st := m.lesson.current(); st != nil {
		return st.Settings, nil
	}
	set := m.scene.Settings
	if m.opts.Mode != "" {
		set.Mode = scenes.Mode(m.opts.Mode)
	}
	return set, nil
}

func (p *lessonPage) ready(m *Model) tea.Cmd {
	if m.lesson.stage != stageStep {
		return nil
	}
	return p.startChecks(m)
}

func (p *lessonPage) key(m *Model, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := &m.keys
	switch {
	case key.Matches(msg, k.Hint):
		if st := m.lesson.current(); st != nil {
			m.lesson.keyHint = m.lesson.stepKeyHint(st, m.actors, m.settings)
		}
		m.lesson.toggleHint()
		m.updateKeys()
		return m.resize(), true
	case key.Matches(msg, k.Next):
		return p.next(m), true
	case key.Matches(msg, k.Choose):
		m.lesson.choose(int(msg.String()[0] - '1'))
		return nil, true
	case key.Matches(msg, k.Compare):
		if m.settings.Mode == scenes.Compare {
			return m.toggleCompareView(), true
		}
		m.notice = m.st.Words.T("a lesson keeps its own mode: compare mode is for scenes, outside lessons")
		return nil, true
	case key.Matches(msg, k.Reset):
		p.restartStep(m)
		return m.reset(), true
	}
	return nil, false
}

func (p *lessonPage) message(m *Model, msg tea.Msg) (tea.Cmd, bool) {
	if msg, ok := msg.(chaosDoneMsg); ok {
		if msg.err != nil || p.chaosStep(*m) == nil {
			return nil, true
		}
		// The run's table is the step's evidence: check it now.
		p.found.Chaos = &msg.report
		return m.enqueue(p.checkAction(m, false)), true
	}
	if msg, ok := msg.(progressSavedMsg); ok {
		if msg.err != nil {
			m.notice = m.st.Words.T("progress not saved: %s", oneLine(msg.err.Error()))
		}
		return nil, true
	}
	return nil, false
}

// done checks the step after every action: its result is checked against
// the simulator before anything else runs.
func (p *lessonPage) done(m *Model, msg actionDoneMsg) tea.Cmd {
	a := msg.act
	if msg.eval != nil && msg.err == nil {
		return p.checked(m, a, *msg.eval)
	}
	if a.kind != actEval && a.kind != actScript && m.lesson.stage == stageStep {
		m.queue = append([]action{p.checkAction(m, false)}, m.queue...)
	}
	return nil
}

func (p *lessonPage) status(m Model) (string, string) { return "", m.lesson.lesson.Name }

func (p *lessonPage) caption(Model, screen) string { return "" }

func (p *lessonPage) ownsKeys() bool { return false }

func (p *lessonPage) shownLesson() *lessonPage { return p }

func (p *lessonPage) learn(lp *lessonPage) (page, bool) { return lp, true }

func (p *lessonPage) failed() error { return nil }

// chaosStep is the current step when its task is a chaos run.
func (p *lessonPage) chaosStep(m Model) *lessons.Step {
	if st := m.lesson.current(); st != nil && st.Chaos > 0 && m.lesson.stage == stageStep {
		return st
	}
	return nil
}
