package ui

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/internal/teadrive"
	"github.com/outboxlab/outboxlab/lessons"
)

var checkLine = regexp.MustCompile(`([✓✗·]) timeline: relay-1 crashed at relay\.published`)

func checkMark(t *testing.T, screen string) string {
	t.Helper()
	m := checkLine.FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("the check is not on screen:\n%s", screen)
	}
	return m[1]
}

// A lesson driven by messages through the root model: a wrong action
// leaves the step's check unpassed on screen; the task, done with the
// learner's keys, passes it, and the pass is saved as progress.
func TestDriveLessonStep(t *testing.T) {
	t.Parallel()
	progress := filepath.Join(t.TempDir(), "progress.json")
	d := newDriver(t, Options{Lesson: "duplicate", Lang: "en", ProgressPath: progress})
	// The lesson opens on its introduction's page; enter turns it.
	scr := d.screen()
	for _, want := range []string{"Lesson 5/20 duplicate · introduction", d.M.lesson.Lesson().Title, "enter begins step 1"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the introduction's page lacks %q:\n%s", want, scr)
		}
	}
	if strings.Contains(scr, "Task.") {
		t.Errorf("the introduction's page shows the step:\n%s", scr)
	}
	d.press("enter")
	scr = d.screen()
	for _, want := range []string{"lesson duplicate", "Lesson 5/20 duplicate · step 1/2", "Step 1/2 · Die between publish and mark", "Task."} {
		if !strings.Contains(scr, want) {
			t.Errorf("screen lacks %q:\n%s", want, scr)
		}
	}
	if mark := checkMark(t, scr); mark != "✗" {
		t.Errorf("before any action the crash check shows %s", mark)
	}

	// Wrong: a payment run through without the crash armed.
	d.press("p")
	stepUntilQuiet(d)
	if mark := checkMark(t, d.screen()); mark != "✗" || d.M.lesson.Place() != lessons.PlaceStep {
		t.Fatalf("a run without the crash passed the step (%s):\n%s", mark, d.screen())
	}
	if d.M.keys.Next.Enabled() {
		t.Error("enter (next step) is enabled before the step passed")
	}
	d.press("h")
	if !strings.Contains(d.screen(), "Hint.") {
		t.Errorf("h shows no hint:\n%s", d.screen())
	}

	// Start over (r) and do the task: crash relay-1 at relay.published, a
	// payment, run.
	d.press("r")
	d.waitFor("the new simulation", func(m Model) bool { return m.sim != nil })
	d.settle()
	if mark := checkMark(t, d.screen()); mark != "✗" {
		t.Fatalf("after r the check shows %s", mark)
	}
	d.press("c", "down", "enter") // relay-1
	d.press("down", "down", "enter")
	d.press("p")
	stepUntilQuiet(d)
	scr = d.screen()
	if d.M.lesson.Place() != lessons.PlacePassed {
		t.Fatalf("the task done, the step has not passed:\n%s", scr)
	}
	// Passed, the checks fold into one line under the why.
	for _, want := range []string{"Why.", "✓ step passed · 3 checks hold", "enter next step"} {
		if !strings.Contains(scr, want) {
			t.Errorf("screen lacks %q:\n%s", want, scr)
		}
	}
	p, err := lessons.LoadProgress(progress)
	if err != nil {
		t.Fatal(err)
	}
	if p.Steps("duplicate") != 1 || p.Done("duplicate") {
		t.Errorf("progress after step 1: %+v", p.Lessons)
	}

	// Step 2 continues on the same simulator: its checks count from here.
	d.press("enter")
	if since := d.M.lessonPage().course.since; d.M.lesson.Step() != 1 || since == 0 {
		t.Fatalf("after enter: step %d, since %d", d.M.lesson.Step(), since)
	}
	d.press("t")
	d.press("c", "down", "enter", "enter") // relay-1 → restart
	stepUntilQuiet(d)
	if d.M.lesson.Place() != lessons.PlacePassed {
		t.Fatalf("step 2 not passed:\n%s", d.screen())
	}
	// The quiz, by number: the first question answered wrong, the others
	// right; the instructor's view of the learner counts them.
	d.press("enter")
	quiz := d.M.lesson.Lesson().Quiz
	for q, question := range quiz {
		if !strings.Contains(d.screen(), "Question "+string(rune('1'+q))) {
			t.Errorf("question %d not on screen:\n%s", q+1, d.screen())
		}
		choice := question.Answer()
		if q == 0 {
			choice = (choice + 1) % len(question.Choices)
		}
		d.press(string(rune('1'+choice)), "enter")
		if !strings.Contains(d.screen(), "✓ "+string(rune('1'+question.Answer()))+".") {
			t.Errorf("the answer is not marked right:\n%s", d.screen())
		}
		if got := d.M.LearnerState(); got.QuizAnswered != q+1 || got.QuizRight != q || got.QuizTotal != len(quiz) {
			t.Errorf("after question %d the learner's state says %d of %d answered, %d right", q+1, got.QuizAnswered, got.QuizTotal, got.QuizRight)
		}
		d.press("enter")
	}
	if d.M.lesson.Place() != lessons.PlaceDone || !strings.Contains(d.screen(), "1 of 2 answered right") {
		t.Errorf("not done:\n%s", d.screen())
	}
	if got := d.M.LearnerState(); got.QuizAnswered != 2 || got.QuizRight != 1 {
		t.Errorf("done, the learner's state says %d answered, %d right", got.QuizAnswered, got.QuizRight)
	}
	d.settle()
	if p, err = lessons.LoadProgress(progress); err != nil || !p.Done("duplicate") || p.Steps("duplicate") != 2 {
		t.Errorf("progress at the end: %+v, %v", p.Lessons, err)
	}
	if _, err := os.Stat(progress); err != nil {
		t.Error(err)
	}
}

// The mouse wheel scrolls the lesson's text as ↑ and ↓ do, over the pane
// on screen: a learner in a browser or a terminal with a mouse reads a
// long hint by the wheel.
func TestTheWheelScrollsTheLesson(t *testing.T) {
	course, err := lessons.Load("en")
	if err != nil {
		t.Fatal(err)
	}
	m := fixtureModelIn(t, 80, 24, "", 3, "en")
	m.learnCourse(course)
	l, err := lessons.Find(course, "cdc")
	if err != nil {
		t.Fatal(err)
	}
	m.openLesson(l)
	m = send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m = send(t, m, teadrive.KeyPress("enter"))
	m.lesson.SetKeyHint("`p` send a payment")
	m.lesson.ToggleHint()
	m.lesson.ScrollTo(0)
	if len(m.lesson.Content()) <= m.lesson.BodyHeight() {
		t.Fatal("the step with its hint fits: nothing to scroll")
	}
	at := m.layout().lesson
	m = send(t, m, tea.MouseWheelMsg{X: at.x + 2, Y: at.y + 2, Button: tea.MouseWheelDown})
	if m.lesson.Offset() == 0 {
		t.Fatal("the wheel down over the lesson did not scroll it")
	}
	m = send(t, m, tea.MouseWheelMsg{X: at.x + 2, Y: at.y + 2, Button: tea.MouseWheelUp})
	if m.lesson.Offset() != 0 {
		t.Errorf("the wheel up left the lesson at line %d", m.lesson.Offset())
	}
}
