package ui

import (
	"fmt"
	"maps"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/scenes"
)

// A lesson runs on the root model: the root owns the simulator and the
// action queue, so a step's checks are evaluated as one more queued action
// (lessons.Step.Eval reads the actors' states, which only holds while no
// other operation runs) right after each action's result comes back.

// courseState is the lesson mode's own state: the course, the timeline's
// length when the current step began, and the learner's saved progress.
type courseState struct {
	all      []*lessons.Lesson
	since    int
	progress *lessons.Progress
}

// openLesson shows a lesson at its first step; the simulator for it is
// built by buildSim, when the server is up.
func (m *Model) openLesson(l *lessons.Lesson) {
	pos, next := "", (*lessons.Lesson)(nil)
	for i, c := range m.course.all {
		if c == l {
			pos = fmt.Sprintf("%d/%d", i+1, len(m.course.all))
			if i+1 < len(m.course.all) {
				next = m.course.all[i+1]
			}
		}
	}
	if sc, err := scenes.Find(m.all, l.Scene); err == nil {
		m.scene = sc
	}
	var seed uint64
	if m.course.progress != nil {
		seed = m.course.progress.QuizSeed
	}
	m.lesson.setLesson(l.WithQuizOrder(seed), pos, next)
	m.settings = l.Steps[0].Settings
	m.focus = focusTimeline
	m.setFocus()
	m.updateKeys()
}

// checkAction evaluates the current step's checks; mark says the step
// begins now.
func (m *Model) checkAction(mark bool) action {
	return action{kind: actEval, check: m.lesson.current(), mark: mark, since: m.course.since}
}

// startChecks begins the current step on the running simulator: the
// timeline entries so far do not count toward it.
func (m *Model) startChecks() tea.Cmd {
	// The session plays this step's script next (a played lesson's
	// solution; none for a learner), then the step's checks begin.
	m.queue = append(m.queue, action{kind: actScript, steps: m.scriptSteps()})
	if m.opts.Play {
		st := m.lesson.current()
		lb := m.lesson.lang()
		m.play.caption = fmt.Sprintf("%s %d/%d · %s: %s", lb.Step, m.lesson.step+1, len(m.lesson.lesson.Steps), st.Title, oneLine(st.Task))
		text := st.Read + " " + st.Task
		if m.lesson.step == 0 {
			text += " " + m.lesson.lesson.Intro
		}
		m.play.delay = m.readTime(text)
	}
	return m.enqueue(m.checkAction(true))
}

// checked takes an evaluation of the step's checks.
func (m *Model) checked(a action, r evalResult) tea.Cmd {
	if a.check != m.lesson.current() || m.lesson.stage != stageStep {
		return nil // stale: the step moved on
	}
	if a.mark {
		m.course.since = r.since
	}
	m.lesson.setOutcomes(r.outcomes, r.passed)
	if !r.passed {
		return nil
	}
	// A run the learner started goes on until nothing moves, as the task
	// says; the why is on screen meanwhile.
	m.updateKeys()
	if m.course.progress != nil {
		m.course.progress.MarkStep(m.lesson.lesson.Name, m.lesson.step+1)
		return m.saveProgress()
	}
	return nil
}

// lessonNext is enter: the next step once this one passed, the quiz after
// the last step, answering and moving through the quiz, and at the end the
// next lesson of the course.
func (m *Model) lessonNext() tea.Cmd {
	l := &m.lesson
	switch l.stage {
	case stagePassed:
		if l.step+1 < len(l.lesson.Steps) {
			l.startStep(l.step + 1)
			m.updateKeys()
			if l.current().Fresh {
				return m.reset()
			}
			l.carryOver(m.actors)
			return tea.Batch(m.startChecks(), m.resize())
		}
		l.startQuiz()
		m.focus = focusLesson
		m.setFocus()
	case stageQuiz:
		if !l.answered {
			l.answer()
			break
		}
		if !l.nextQuestion() && m.course.progress != nil {
			m.course.progress.MarkDone(l.lesson.Name, time.Now())
			m.updateKeys()
			return tea.Batch(m.saveProgress(), m.resize())
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
func (m *Model) restartStep() {
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
func (m *Model) saveProgress() tea.Cmd {
	p := *m.course.progress
	p.Lessons = maps.Clone(m.course.progress.Lessons)
	return func() tea.Msg { return progressSavedMsg{p.Save()} }
}

// scriptSteps are the commands n plays next: the scene's script, or in a
// played lesson the current step's solution; a learner's lesson has none
// (it runs on the scene's settings, never its script).
func (m Model) scriptSteps() []scenes.Step {
	if m.lesson.lesson == nil {
		return m.scene.Steps
	}
	if m.opts.Play && m.lesson.stage <= stagePassed {
		return m.lesson.current().Solution
	}
	return nil
}

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

// updateLessonKeys enables the lesson's keys where they apply.
func (m *Model) updateLessonKeys() {
	k := &m.keys
	l := m.lesson
	on := l.lesson != nil && m.phase == phaseRunning && !m.opts.Play
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
func (m Model) lessonLayout(s screen) screen {
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
		gh := min(1+2*len(m.settings.Pipelines()), rest/4)
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
	s.lesson = rect{0, y, W, rest - tlh}
	s.timeline = rect{0, y + rest - tlh, W, tlh}
	return s
}

// lessonBody draws the body as lessonLayout places it.
func (m Model) lessonBody(l screen) string {
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
	parts = append(parts, m.lesson.View(), m.timeline.View())
	return strings.Join(parts, "\n")
}

// playTickMsg drives `outboxlab play`; a stale tag is dropped.
type playTickMsg struct{ tag int }

// schedulePlay arms play's next move after the current caption's pause.
// readTime is how long a caption stays: long enough to read it (about 200
// words a minute, and a moment more), scaled by --speed.
// captionFor captions an action with what it added to the timeline.
// playNext is play's next move: the next command of the script (a scene's,
// or the step's solution), the next step once the why was read, the quiz
// answered question by question, and at the end, quit.
// questionText is the question on screen with its choices, for a caption.
// end holds the last frame a moment, then quits.
// playKey is the keyboard during play: q quits, space pauses and resumes,
// ? shows the keys; nothing else is needed.
// captionLines is play's caption wrapped to the width.
// captionView draws the caption, h lines, full width.
