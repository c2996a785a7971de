package ui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/lessons"
)

// course is the course in the learner's language, for the / picker: the
// free simulator leads to the lessons as well as the scenes. Nil if it does
// not load (the picker then lists the scenes alone; --lesson says why).
func (m Model) course() []*lessons.Lesson {
	lang := m.opts.Lang
	if lang == "" {
		lang = "en"
	}
	lang, err := lessons.ParseLang(lang)
	if err != nil {
		return nil
	}
	course, err := lessons.Load(lang)
	if err != nil {
		return nil
	}
	return course
}

// startLesson opens a lesson chosen in the picker, as --lesson does: the
// page becomes a lesson page with the learner's saved progress, and the
// lesson's first step starts on a fresh simulation.
func (m *Model) startLesson(l *lessons.Lesson) tea.Cmd {
	if m.lessonPage() == nil {
		free, _ := m.page.(*simulatorPage)
		m.learnCourse(m.course())
		if lp := m.lessonPage(); lp != nil && free != nil {
			lp.back = free // opened from the free simulator's /: esc goes back to it
		}
	}
	m.openLesson(l)
	return m.reset()
}

// openLesson shows a lesson at its first step; the simulator for it is
// built by buildSim, when the server is up. The free simulator's page
// becomes a lesson page; play's plays the lesson.
func (m *Model) openLesson(l *lessons.Lesson) {
	p := m.lessonPage()
	if p == nil {
		p = &lessonPage{}
		m.learn(p)
	}
	p.open(m.pageCtx(), l)
}

// learnCourse opens a course in the page, as --lesson and the picker do:
// a lesson of the learner's own keeps their saved progress.
func (m *Model) learnCourse(course []*lessons.Lesson) {
	lp := &lessonPage{course: courseState{all: course}}
	if m.learn(lp) {
		progress, err := lessons.LoadProgress(m.opts.ProgressPath)
		if err != nil {
			m.run.say(m.st.Words.T("progress will not be saved: %s", err.Error()))
		}
		lp.course.progress = progress
	}
}

// learn shows lesson page lp: in place of the free simulator (or of the
// lesson page before it), or in play, which plays it. own says the lesson
// is the learner's, its progress saved: a played lesson's is not.
func (m *Model) learn(lp *lessonPage) (own bool) {
	if pp := m.playPage(); pp != nil {
		pp.lesson = lp
		return false
	}
	m.page = lp
	return true
}

// lessonPage is the lesson on screen, shown or played; nil outside lessons.
func (m Model) lessonPage() *lessonPage {
	switch p := m.page.(type) {
	case *lessonPage:
		return p
	case *playPage:
		return p.lesson
	}
	return nil
}

// playPage is play's page while the screen plays by itself, else nil:
// play takes every key itself, before any overlay, and the help shows no
// pane's keys (space and q, over the chaos run it plays too).
func (m Model) playPage() *playPage {
	pp, _ := m.page.(*playPage)
	return pp
}
