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
		m.page, _ = m.page.learn(p)
	}
	p.open(m.pageCtx(), l)
}

// learnCourse opens a course in the page, as --lesson and the picker do:
// a lesson of the learner's own keeps their saved progress.
func (m *Model) learnCourse(course []*lessons.Lesson) {
	lp := &lessonPage{course: courseState{all: course}}
	next, own := m.page.learn(lp)
	if own {
		progress, err := lessons.LoadProgress(m.opts.ProgressPath)
		if err != nil {
			m.run.say(m.st.Words.T("progress will not be saved: %s", err.Error()))
		}
		lp.course.progress = progress
	}
	m.page = next
}

// lessonPage is the page's lesson, nil outside lessons.
func (m Model) lessonPage() *lessonPage { return m.page.shownLesson() }
