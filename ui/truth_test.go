package ui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/screen"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

// The free simulator leads to the course: its empty timeline and its key
// line name /, the / picker lists the lessons before the scenes, choosing
// one opens it, and one esc leaves the picker's filter.
func TestTheFreeSimulatorLeadsToTheCourse(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{ProgressPath: filepath.Join(t.TempDir(), "progress.json")})
	if s := d.screen(); !strings.Contains(s, "/ opens the course at lesson 1") || !strings.Contains(s, "lessons and scenes") {
		t.Errorf("the first screen does not lead to the lessons:\n%s", s)
	}
	d.press("/")
	if !d.M.overlays.has(overlayPicker) {
		t.Fatal("/ did not open the picker")
	}
	d.press("esc")
	if d.M.overlays.has(overlayPicker) {
		t.Fatal("one esc did not leave the picker")
	}
	d.press("/")
	first, pos, ok := d.M.picker.Item(0)
	if l, err := lessons.Find(d.M.course(), first); !ok || err != nil || l.Name != "outbox" && l.Order != 1 {
		t.Fatalf("the picker's first item is %v, want the course's first lesson", first)
	}
	d.M.picker.Select(0) // the cursor on the course's first lesson
	d.press("enter")
	d.waitFor("the lesson", func(m Model) bool { return m.lesson.Lesson() != nil && m.sim != nil && !m.run.busy })
	d.settle()
	if d.M.lesson.Lesson().Name != first || d.M.lessonPage() == nil {
		t.Errorf("choosing %s opened %v", first, d.M.lesson.Lesson())
	}
	// Opened from /, the lesson shows its number, and esc goes back.
	if want := "Lesson " + pos + " " + first; !strings.Contains(d.screen(), want) {
		t.Errorf("the lesson opened from / does not show %q:\n%s", want, d.screen())
	}
	d.press("esc")
	d.waitFor("the free simulator", func(m Model) bool { return m.lessonPage() == nil && m.sim != nil && !m.run.busy })
	if strings.Contains(d.screen(), "Lesson ") {
		t.Errorf("after esc the lesson is still on screen:\n%s", d.screen())
	}
}

// w's notice names the saved file and the command that replays it: too long
// for the status line, it is drawn whole, wrapped, over the foot of the body.
func TestALongNoticeIsReadWhole(t *testing.T) {
	m := fixtureModel(t, 80, 24, "outbox", 2)
	m.run.notice = m.st.Words.T("saved %s (outboxlab run --scenes %s %s replays it)", "/home/learner/.local/share/outboxlab/sessions/crash-after-publish-1.scene", "/home/learner/.local/share/outboxlab/sessions", "crash-after-publish-1")
	shown := screen.OneLine(panetest.Plain(m.render()))
	if !strings.Contains(shown, "outboxlab run --scenes /home/learner/.local/share/outboxlab/sessions crash-after-publish-1 replays it") {
		t.Errorf("the replay command is not on screen whole:\n%s", panetest.Plain(m.render()))
	}
}
