package ui

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

func loadLesson(t *testing.T, lang, name string) (*lessons.Lesson, []*lessons.Lesson) {
	t.Helper()
	all, err := lessons.Load(lang)
	if err != nil {
		t.Fatal(err)
	}
	l, err := lessons.Find(all, name)
	if err != nil {
		t.Fatal(err)
	}
	return l, all
}

// A step in progress: the first check passed, the others not yet.
func lessonInProgress(t *testing.T, lang string, w, h int) lessonPane {
	l, all := loadLesson(t, lang, "duplicate")
	p := newLessonPane(panetest.Styles(), nil)
	p.SetSize(w, h)
	p.setLesson(l, "5/12", all[5])
	p.closeIntro()
	var out []lessons.Outcome
	for i := range l.Steps[0].Checks {
		c := &l.Steps[0].Checks[i]
		out = append(out, lessons.Outcome{Check: c, OK: i == 0, Detail: "detail " + c.Kind})
	}
	p.setOutcomes(out, false)
	return p
}

// Both languages load and render the lesson pane at 80 columns: a step in
// progress with its hint, a passed step with its why, an answered question.
func TestLessonPaneGolden(t *testing.T) {
	for _, lang := range lessons.Langs {
		t.Run(lang, func(t *testing.T) {
			p := lessonInProgress(t, lang, 80, 40)
			panetest.Golden(t, "lesson_step_"+lang+"_80", p.View())

			p.toggleHint()
			if !strings.Contains(panetest.Plain(p.View()), map[string]string{"en": "Hint.", "es": "Pista."}[lang]) {
				t.Errorf("the hint is not on screen:\n%s", panetest.Plain(p.View()))
			}
			var out []lessons.Outcome
			for i := range p.lesson.Steps[0].Checks {
				out = append(out, lessons.Outcome{Check: &p.lesson.Steps[0].Checks[i], OK: true, Detail: "ok"})
			}
			p.setOutcomes(out, true)
			panetest.Golden(t, "lesson_passed_"+lang+"_80", p.View())

			p.startQuiz()
			p.choose(1)
			p.answer()
			panetest.Golden(t, "lesson_quiz_"+lang+"_80", p.View())
		})
	}
}

// Every lesson renders every step and question in both languages, at the
// narrowest and a wide pane, with nothing wider than the pane.
func TestEveryLessonRenders(t *testing.T) {
	t.Parallel()
	for _, lang := range lessons.Langs {
		all, err := lessons.Load(lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range all {
			for _, w := range []int{80, 50} {
				p := newLessonPane(panetest.Styles(), nil)
				p.SetSize(w, 30)
				p.setLesson(l, "1/1", nil)
				check := func(what string) {
					v := p.View()
					for i, line := range strings.Split(v, "\n") {
						if n := len([]rune(panetest.Plain(line))) - 1; n > w {
							t.Errorf("%s/%s %s at %d: line %d is %d wide", lang, l.Name, what, w, i, n)
						}
					}
					if strings.Count(v, "\n") != 29 {
						t.Errorf("%s/%s %s: %d lines, want 30", lang, l.Name, what, strings.Count(v, "\n")+1)
					}
				}
				check("introduction")
				p.closeIntro()
				for i := range l.Steps {
					p.startStep(i)
					check(l.Steps[i].Title)
				}
				p.startQuiz()
				for {
					p.answer()
					check("question")
					if !p.nextQuestion() {
						break
					}
				}
				check("done")
			}
		}
	}
}

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
	for _, want := range []string{"Lesson 5/20 duplicate · introduction", d.m.lesson.lesson.Title, "enter begins step 1"} {
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
	if mark := checkMark(t, d.screen()); mark != "✗" || d.m.lesson.place != placeStep {
		t.Fatalf("a run without the crash passed the step (%s):\n%s", mark, d.screen())
	}
	if d.m.keys.Next.Enabled() {
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
	if d.m.lesson.place != placePassed {
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
	if since := d.m.lessonPage().course.since; d.m.lesson.step != 1 || since == 0 {
		t.Fatalf("after enter: step %d, since %d", d.m.lesson.step, since)
	}
	d.press("t")
	d.press("c", "down", "enter", "enter") // relay-1 → restart
	stepUntilQuiet(d)
	if d.m.lesson.place != placePassed {
		t.Fatalf("step 2 not passed:\n%s", d.screen())
	}
	// The quiz, by number: the first question answered wrong, the others
	// right; the instructor's view of the learner counts them.
	d.press("enter")
	quiz := d.m.lesson.lesson.Quiz
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
		if got := d.m.LearnerState(); got.QuizAnswered != q+1 || got.QuizRight != q || got.QuizTotal != len(quiz) {
			t.Errorf("after question %d the learner's state says %d of %d answered, %d right", q+1, got.QuizAnswered, got.QuizTotal, got.QuizRight)
		}
		d.press("enter")
	}
	if d.m.lesson.place != placeDone || !strings.Contains(d.screen(), "1 of 2 answered right") {
		t.Errorf("not done:\n%s", d.screen())
	}
	if got := d.m.LearnerState(); got.QuizAnswered != 2 || got.QuizRight != 1 {
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

// A long code line wraps under itself: at 50 columns every continuation of
// a code block's line is indented deeper than the line it continues, in a
// fenced block and an indented one, and no word is lost.
func TestLessonCodeKeepsItsIndentation(t *testing.T) {
	long := "SELECT id FROM outbox_messages WHERE published_at IS NULL AND dead_lettered_at IS NULL AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())"
	code := []string{"WITH candidates AS (", "    " + long, "UPDATE outbox_messages SET lock_id = @worker"}
	for name, md := range map[string]string{
		"fenced":   "Read this:\n\n```sql\n" + strings.Join(code, "\n") + "\n```\n\nAfter.",
		"indented": "Read this:\n\n    " + strings.Join(code, "\n    ") + "\n\nAfter.",
	} {
		t.Run(name, func(t *testing.T) {
			p := newLessonPane(panetest.Styles(), nil)
			p.SetSize(50, 30)
			lines := strings.Split(panetest.Plain(strings.Join(p.markdown(md), "\n")), "\n")
			first, last := -1, -1
			for i, line := range lines {
				if n := ansi.StringWidth(line); n > p.textWidth() {
					t.Errorf("line %d is %d wide, more than %d: %q", i, n, p.textWidth(), line)
				}
				if strings.Contains(line, "SELECT id") {
					first = i
				}
				if strings.Contains(line, "UPDATE outbox_messages") {
					last = i
				}
			}
			if first < 0 || last <= first+1 {
				t.Fatalf("the long line is not wrapped between its neighbours:\n%s", strings.Join(lines, "\n"))
			}
			indent := func(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }
			var words []string
			for _, line := range lines[first:last] {
				words = append(words, strings.Fields(line)...)
			}
			for _, line := range lines[first+1 : last] {
				if indent(line) <= indent(lines[first]) {
					t.Errorf("a continuation is not indented under its line:\n%s", strings.Join(lines[first:last+1], "\n"))
					break
				}
			}
			if got := strings.Join(words, " "); got != long {
				t.Errorf("the wrapped line reads\n%s\nnot\n%s", got, long)
			}
		})
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
	m = send(t, m, panetest.KeyPress("enter"))
	m.lesson.keyHint = "`p` send a payment"
	m.lesson.toggleHint()
	m.lesson.offset = 0
	if len(m.lesson.content()) <= m.lesson.bodyHeight() {
		t.Fatal("the step with its hint fits: nothing to scroll")
	}
	at := m.layout().lesson
	m = send(t, m, tea.MouseWheelMsg{X: at.x + 2, Y: at.y + 2, Button: tea.MouseWheelDown})
	if m.lesson.offset == 0 {
		t.Fatal("the wheel down over the lesson did not scroll it")
	}
	m = send(t, m, tea.MouseWheelMsg{X: at.x + 2, Y: at.y + 2, Button: tea.MouseWheelUp})
	if m.lesson.offset != 0 {
		t.Errorf("the wheel up left the lesson at line %d", m.lesson.offset)
	}
}
