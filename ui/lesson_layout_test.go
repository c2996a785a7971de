package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/sim"
)

// At 80×24 a lesson takes most of the screen: for every step of every
// lesson, in both languages, the lesson pane keeps at least twelve lines
// of text under its title, the data pane under it is the one the step
// names, tab shows the next one, and after h the hint's keys line is in
// view. The test logs the step whose text is longest and how much of it
// the pane shows.
func TestLessonLayoutAt80x24(t *testing.T) {
	longest, shown, where := 0, 0, ""
	steps, whole := 0, 0 // steps, and those read with no scrolling
	for _, lang := range lessons.Langs {
		course, err := lessons.Load(lang)
		if err != nil {
			t.Fatal(err)
		}
		m := fixtureModelIn(t, 80, 24, "", 3, lang)
		m.sim = &sim.Sim{} // keys that need a simulation are enabled; nothing calls it here
		m.learnCourse(course)
		for _, l := range course {
			m.openLesson(l)
			for i := range l.Steps {
				m.lesson.startStep(i)
				m.updateKeys()
				m = send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
				at := fmt.Sprintf("%s/%s step %d", lang, l.Name, i+1)
				lay := m.layout()
				if lay.lesson.h-1 < 12 {
					t.Errorf("%s: %d lines of lesson text, want at least 12", at, lay.lesson.h-1)
				}
				frame := plain(m.render())
				want := m.lesson.watch()
				if f := namedPaneMissing(m, frame); len(f) > 0 {
					t.Errorf("%s: %s", at, f[0].what)
				}
				steps++
				if len(m.lesson.content()) <= m.lesson.bodyHeight() {
					whole++
				}
				if n := len(m.lesson.content()); n > longest {
					longest, shown, where = n, m.lesson.bodyHeight(), at
					if m.lesson.pinned() {
						shown += len(m.lesson.footer())
					}
				}
				// tab: the next data pane, in lessons.Panes' order.
				mm := send(t, m, keyPress("tab"))
				if got := mm.lesson.watch(); got == want {
					t.Errorf("%s: tab left the data pane at %s", at, got)
				} else if !strings.Contains(plain(mm.render()), mm.st.Words.Word(paneTitles[got])) {
					t.Errorf("%s: after tab %s is not on screen", at, got)
				}
				// h: the keys line in view.
				if st := m.lesson.current(); len(st.Solution) > 0 || st.Chaos > 0 {
					mh := m
					mh.lesson.keyHint = "`p` " + m.st.Words.T("send a payment")
					mh.lesson.toggleHint()
					keys := labelsFor(lang).Keys + "."
					if !strings.Contains(plain(mh.render()), keys) {
						t.Errorf("%s: after h the keys line (%s) is not in view:\n%s", at, keys, plain(mh.render()))
					}
				}
			}
		}
	}
	t.Logf("longest step: %s, %d lines of text; %d in view at 80×24", where, longest, shown)
	t.Logf("%d of %d steps (both languages) read whole at 80×24 with no scrolling", whole, steps)
}
