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
		m.learnCourse(m.course())
	}
	m.openLesson(l)
	return m.reset()
}
