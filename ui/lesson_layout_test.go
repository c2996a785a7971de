package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/internal/teadrive"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/ui/lesson"
	"github.com/outboxlab/outboxlab/ui/panetest"
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
	intros, introsWhole := 0, 0
	var scrolled []string
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
			m = send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
			// The introduction: a page of its own, the whole body.
			if !m.lesson.OnIntro() {
				t.Errorf("%s/%s opens on its step 1, not its introduction", lang, l.Name)
			}
			intros++
			if len(m.lesson.Content()) <= m.lesson.BodyHeight() {
				introsWhole++
			} else {
				scrolled = append(scrolled, fmt.Sprintf("%s/%s introduction (%d lines, %d in view)", lang, l.Name, len(m.lesson.Content()), m.lesson.BodyHeight()))
			}
			if !strings.Contains(panetest.Plain(m.render()), m.st.Words.Word("enter begins step 1")) {
				t.Errorf("%s/%s: the introduction does not say how to begin:\n%s", lang, l.Name, panetest.Plain(m.render()))
			}
			m = send(t, m, teadrive.KeyPress("enter"))
			if m.lesson.OnIntro() || m.lesson.Step() != 0 {
				t.Fatalf("%s/%s: enter did not turn the introduction's page", lang, l.Name)
			}
			for i, st := range l.Steps {
				m.lesson.StartStep(i)
				m.updateKeys()
				m = send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
				at := fmt.Sprintf("%s/%s step %d", lang, l.Name, i+1)
				lay := m.layout()
				if lay.lesson.h-1 < 12 {
					t.Errorf("%s: %d lines of lesson text, want at least 12", at, lay.lesson.h-1)
				}
				frame := panetest.Plain(m.render())
				want := m.lesson.Watch()
				if f := namedPaneMissing(m, frame); len(f) > 0 {
					t.Errorf("%s: %s", at, f[0].what)
				}
				steps++
				if len(m.lesson.Content()) <= m.lesson.BodyHeight() {
					whole++
				} else {
					scrolled = append(scrolled, fmt.Sprintf("%s (%d lines, %d in view)", at, len(m.lesson.Content()), m.lesson.BodyHeight()))
				}
				if n := len(m.lesson.Content()); n > longest {
					longest, shown, where = n, m.lesson.BodyHeight(), at
					if m.lesson.Pinned() {
						shown += len(m.lesson.Footer())
					}
				}
				// tab: the next data pane, in lessons.Panes' order.
				mm := send(t, m, teadrive.KeyPress("tab"))
				if got := mm.lesson.Watch(); got == want {
					t.Errorf("%s: tab left the data pane at %s", at, got)
				} else if !strings.Contains(panetest.Plain(mm.render()), mm.st.Words.Word(paneTitles[got])) {
					t.Errorf("%s: after tab %s is not on screen", at, got)
				}
				// h: the keys line in view.
				if len(st.Solution) > 0 || st.Chaos > 0 {
					mh := m
					mh.lesson.SetKeyHint("`p` " + m.st.Words.T("send a payment"))
					mh.lesson.ToggleHint()
					keys := lesson.LabelsFor(lang).Keys + "."
					if !strings.Contains(panetest.Plain(mh.render()), keys) {
						t.Errorf("%s: after h the keys line (%s) is not in view:\n%s", at, keys, panetest.Plain(mh.render()))
					}
				}
				// Passed: the why, read whole, and the checks in one line.
				mp := m
				mp.lesson.SetOutcomes(passing(&st), true)
				mp = send(t, mp, tea.WindowSizeMsg{Width: 80, Height: 24})
				if len(mp.lesson.Content()) > mp.lesson.BodyHeight() {
					scrolled = append(scrolled, fmt.Sprintf("%s passed, its why (%d lines, %d in view)", at, len(mp.lesson.Content()), mp.lesson.BodyHeight()))
				}
				if fold := mp.st.Words.T("%d checks hold", len(st.Checks)); !strings.Contains(panetest.Plain(mp.render()), fold) {
					t.Errorf("%s passed: %q is not on screen:\n%s", at, fold, panetest.Plain(mp.render()))
				}
			}
		}
	}
	t.Logf("longest step: %s, %d lines of text; %d in view at 80×24", where, longest, shown)
	t.Logf("%d of %d steps and %d of %d introductions (both languages) read whole at 80×24 with no scrolling", whole, steps, introsWhole, intros)
	for _, s := range scrolled {
		t.Errorf("scrolls at 80×24: %s", s)
	}
}

// passing is an evaluation of a step in which every check holds.
func passing(st *lessons.Step) []lessons.Outcome {
	out := make([]lessons.Outcome, len(st.Checks))
	for i := range out {
		out[i].OK = true
	}
	return out
}
