package lesson

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/screen"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

func TestMain(m *testing.M) { panetest.Main(m) }

// A step in progress: the first check passed, the others not yet.
func lessonInProgress(t *testing.T, lang string, w, h int) Pane {
	l, all := panetest.Lesson(t, lang, "duplicate")
	p := New(panetest.Styles(), nil, nil)
	p.SetSize(w, h)
	p.SetLesson(l, "5/12", all[5])
	p.CloseIntro()
	var out []lessons.Outcome
	for i := range l.Steps[0].Checks {
		c := &l.Steps[0].Checks[i]
		out = append(out, lessons.Outcome{Check: c, OK: i == 0, Detail: "detail " + c.Kind})
	}
	p.SetOutcomes(out, false)
	return p
}

// Both languages load and render the lesson pane at 80 columns: a step in
// progress with its hint, a passed step with its why, an answered question.
func TestLessonPaneGolden(t *testing.T) {
	for _, lang := range lessons.Langs {
		t.Run(lang, func(t *testing.T) {
			p := lessonInProgress(t, lang, 80, 40)
			panetest.Golden(t, "lesson_step_"+lang+"_80", p.View())

			p.ToggleHint()
			if !strings.Contains(panetest.Plain(p.View()), map[string]string{"en": "Hint.", "es": "Pista."}[lang]) {
				t.Errorf("the hint is not on screen:\n%s", panetest.Plain(p.View()))
			}
			var out []lessons.Outcome
			for i := range p.lesson.Steps[0].Checks {
				out = append(out, lessons.Outcome{Check: &p.lesson.Steps[0].Checks[i], OK: true, Detail: "ok"})
			}
			p.SetOutcomes(out, true)
			panetest.Golden(t, "lesson_passed_"+lang+"_80", p.View())

			p.StartQuiz()
			p.Choose(1)
			p.Answer()
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
				p := New(panetest.Styles(), nil, nil)
				p.SetSize(w, 30)
				p.SetLesson(l, "1/1", nil)
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
				p.CloseIntro()
				for i := range l.Steps {
					p.StartStep(i)
					check(l.Steps[i].Title)
				}
				p.StartQuiz()
				for {
					p.Answer()
					check("question")
					if !p.NextQuestion() {
						break
					}
				}
				check("done")
			}
		}
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
			p := New(panetest.Styles(), nil, nil)
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

// On the Spanish screen a check line of every kind is Spanish: "✗ oracle:
// naive effects == 2" and "✗ timeline: api crashed at …" were English in
// the middle of a Spanish lesson.
func TestCheckLinesInTheLearnersLanguage(t *testing.T) {
	l, all := panetest.Lesson(t, "es", "duplicate")
	// One check of each kind, from the Spanish lessons as written.
	es, err := lessons.Load("es")
	if err != nil {
		t.Fatal(err)
	}
	var checks []lessons.Check
	seen := map[string]bool{}
	for _, les := range es {
		for _, st := range les.Steps {
			for _, c := range st.Checks {
				if !seen[c.Kind] {
					seen[c.Kind] = true
					checks = append(checks, c)
				}
			}
		}
	}
	if len(checks) != 5 {
		t.Fatalf("kinds of check found: %v, want oracle, table, timeline, actor, chaos", seen)
	}
	step := l.Steps[0]
	step.Checks = checks
	l.Steps = append([]lessons.Step{step}, l.Steps[1:]...)
	p := New(panetest.StylesIn("es"), nil, nil)
	p.SetSize(120, 40)
	p.SetLesson(l, "5/20", all[5])
	p.CloseIntro()
	var out []lessons.Outcome
	for i := range step.Checks {
		out = append(out, lessons.Outcome{Check: &step.Checks[i], OK: i%2 == 0, Detail: "·"})
	}
	p.SetOutcomes(out, false)
	view := panetest.Plain(p.View())
	for _, english := range []string{"oracle:", "table:", "timeline:", "chaos:", " crashed", " reached ", " is ", " count "} {
		if strings.Contains(view, english) {
			t.Errorf("English %q in the Spanish check lines:\n%s", english, view)
		}
	}
	for _, spanish := range []string{"oráculo:", "tabla:", "cronología:", "caos:", "actor:"} {
		if !strings.Contains(view, spanish) {
			t.Errorf("no %q in the Spanish check lines:\n%s", spanish, view)
		}
	}
}

// A step that continues the step before on the same simulator says which
// actor it begins crashed or stalled, and the key that moves it, in the
// lesson's language.
func TestLessonTaskSaysWhatTheStepBeforeLeft(t *testing.T) {
	for lang, want := range map[string][]string{
		"en": {"relay-1 is still crashed", "c restarts it", "accounting is still stalled", "s resumes it"},
		"es": {"relay-1 sigue caído", "c lo reinicia", "accounting sigue congelado", "s lo reanuda"},
	} {
		p := lessonInProgress(t, lang, 80, 40)
		actors := panetest.Actors()
		for i := range actors {
			switch actors[i].Name {
			case "relay-1":
				actors[i].State = sim.Crashed
			case "accounting":
				actors[i].State = sim.Stalled
			default:
				actors[i].State = sim.Idle
			}
		}
		p.CarryOver(actors)
		view := panetest.Plain(p.View())
		for _, w := range want {
			if !strings.Contains(screen.OneLine(view), w) {
				t.Errorf("%s: the task does not say %q:\n%s", lang, w, view)
			}
		}
		p.StartStep(1)
		if strings.Contains(panetest.Plain(p.View()), want[0]) {
			t.Errorf("%s: the note outlived its step", lang)
		}
	}
}

// A carried note goes once its actor is restarted.
func TestCarriedNoteGoesWithTheRestart(t *testing.T) {
	p := lessonInProgress(t, "en", 80, 40)
	actors := panetest.Actors()
	for i := range actors {
		actors[i].State = sim.Idle
	}
	crashed := slices.Clone(actors)
	for i := range crashed {
		if crashed[i].Name == "relay-1" {
			crashed[i].State = sim.Crashed
		}
	}
	p.CarryOver(crashed)
	if !strings.Contains(screen.OneLine(panetest.Plain(p.View())), "relay-1 is still crashed") {
		t.Fatal("no carried note")
	}
	p.RefreshCarried(actors)
	if strings.Contains(screen.OneLine(panetest.Plain(p.View())), "still crashed") {
		t.Fatal("the note stayed after the restart")
	}
}
