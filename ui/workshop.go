package ui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/lessons"
)

// LearnerState is what a workshop's instructor sees of one learner's
// simulator: where in the course they are and how the step goes. The
// workshop reads it after every message (Model.LearnerState) and keeps the
// times itself.
type LearnerState struct {
	// Lesson is the lesson open ("" in the free simulator).
	Lesson string
	// Step is the step on screen, from 0; Steps how many the lesson has.
	Step, Steps int
	// Place is the step doing its task, passed (its why shown), the quiz
	// or done.
	Place lessons.Place
	// ChecksPassing of ChecksTotal hold at the latest evaluation.
	ChecksPassing, ChecksTotal int
	// HintShown says the step's hint is on screen now.
	HintShown bool
	// QuizAnswered of QuizTotal questions of the lesson's quiz are
	// answered, QuizRight of them right. A question takes one answer, so
	// QuizRight is also how many were right at the first try.
	QuizAnswered, QuizRight, QuizTotal int
	// Running says the simulator is up (booted and its scene built, no
	// reset waiting).
	Running bool
}

// LearnerState reads the model's place in the course for a workshop's
// instructor.
func (m Model) LearnerState() LearnerState {
	// A reset waiting for the action in flight leaves the old simulation
	// on screen: a key pressed then would be lost with it.
	s := LearnerState{Running: m.phase == phaseRunning && m.sim != nil && !m.run.resetting}
	l := m.lesson
	if m.lessonPage() == nil || l.Lesson() == nil {
		return s
	}
	s.Lesson, s.Step, s.Steps = l.Lesson().Name, l.Step(), len(l.Lesson().Steps)
	s.Place = l.Place()
	s.HintShown = l.HintShown()
	s.QuizTotal, s.QuizRight = len(l.Lesson().Quiz), l.Right()
	switch {
	case l.Place() == lessons.PlaceDone:
		s.QuizAnswered = s.QuizTotal
	case l.Place() == lessons.PlaceQuiz:
		s.QuizAnswered = l.Question()
		if l.Answered() {
			s.QuizAnswered++
		}
	}
	if st := l.Current(); st != nil {
		s.ChecksTotal = len(st.Checks)
	}
	for _, o := range l.Outcomes() {
		if o.OK {
			s.ChecksPassing++
		}
	}
	if l.Place() != lessons.PlaceStep {
		s.ChecksPassing = s.ChecksTotal
	}
	return s
}

// OpenLesson opens the named lesson of the course loaded with
// Options.Lesson at its first step, on a fresh simulation (a workshop's
// instructor sends a learner there). Without a course, or with a name not
// in it, the screen stays as it is (with a notice for the name).
func (m Model) OpenLesson(name string) (Model, tea.Cmd) {
	p := m.lessonPage()
	if p == nil {
		return m, nil
	}
	l, err := lessons.Find(p.course.all, name)
	if err != nil {
		m.run.say(err.Error())
		return m, nil
	}
	for _, o := range []overlay{overlayPicker, overlayStory, overlayChaos} {
		m.overlays.pop(o)
	}
	m.openLesson(l)
	return m, m.reset()
}

// resumeStep is the step a lesson opened at Options.Step starts on: the
// latest one at or before it that starts on a fresh simulator, as r
// restarts a step (a later step builds on what the ones before it did).
func resumeStep(l *lessons.Lesson, step int) int {
	i := min(max(step, 0), len(l.Steps)-1)
	for i > 0 && !l.Steps[i].Fresh {
		i--
	}
	return i
}
