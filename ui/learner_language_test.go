package ui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/ui/panetest"
	"github.com/outboxlab/outboxlab/ui/tables"
)

func stylesIn(lang string) *Styles {
	st := DefaultStyles(true)
	st.Words = catalog.For(lang)
	return &st
}

// On the Spanish screen a check line of every kind is Spanish: "✗ oracle:
// naive effects == 2" and "✗ timeline: api crashed at …" were English in
// the middle of a Spanish lesson.
func TestCheckLinesInTheLearnersLanguage(t *testing.T) {
	l, all := loadLesson(t, "es", "duplicate")
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
	p := newLessonPane(stylesIn("es"), nil)
	p.SetSize(120, 40)
	p.setLesson(l, "5/20", all[5])
	p.closeIntro()
	var out []lessons.Outcome
	for i := range step.Checks {
		out = append(out, lessons.Outcome{Check: &step.Checks[i], OK: i%2 == 0, Detail: "·"})
	}
	p.setOutcomes(out, false)
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

// The hint's key line says what each key does in the learner's language:
// "`p` request · `D` drain · step relay-2 · advance 31s" was the scene
// language's English under a Spanish lesson, and "space" a key Spanish
// calls espacio.
func TestHintKeyLineInTheLearnersLanguage(t *testing.T) {
	d := newDriver(t, Options{Lesson: "race", Lang: "es"})
	d.press("h")
	hint := strings.ReplaceAll(d.m.lesson.keyHint, "\u00a0", " ")
	if !strings.Contains(hint, "`m 3 4` mover accounting hasta consumer.inbox_inserted") || !strings.Contains(hint, "`p` enviar un pago") {
		t.Errorf("the Spanish hint does not say its keys in Spanish: %s", hint)
	}
	steps := []scenes.Step{{Cmd: "request"}, {Cmd: "run"}, {Cmd: "step", Args: []string{"relay-1"}}, {Cmd: "advance", Args: []string{"31s"}},
		{Cmd: "drain"}, {Cmd: "crash", Args: []string{"relay-1", "at", "relay.published"}}, {Cmd: "restart", Args: []string{"relay-1"}},
		{Cmd: "duplicate"}, {Cmd: "broker", Args: []string{"down"}}}
	hint = strings.ReplaceAll(keyHint(catalog.For("es"), steps, d.m.actors, d.m.settings), "\u00a0", " ")
	english := regexp.MustCompile(`\b(request|run|step|advance|drain|crash|restart|duplicate|broker down|space)\b`)
	if bad := english.FindAllString(hint, -1); len(bad) > 0 {
		t.Errorf("English %q in the Spanish hint: %s", bad, hint)
	}
	if !strings.Contains(hint, "`espacio` ejecutar") || !strings.Contains(hint, "adelantar el reloj 31s") {
		t.Errorf("the Spanish hint: %s", hint)
	}
	en := keyHint(catalog.For("en"), steps, d.m.actors, d.m.settings)
	if !strings.Contains(en, "`space` run") || !strings.Contains(en, "advance 31s") {
		t.Errorf("the English hint keeps the scene commands: %s", en)
	}
}

// An empty table says so in the learner's language.
func TestTablePlaceholderInTheLearnersLanguage(t *testing.T) {
	for lang, want := range map[string]string{"en": "(empty)", "es": "(vacía)"} {
		p := tables.New(stylesIn(lang))
		p.Reset(nil, 1, []string{"outbox"})
		p.SetSize(100, 6)
		p, _ = p.Update(tables.ReadMsg{SimID: 1, Gen: 1, Pipeline: "outbox", Table: sim.Table{Name: "outbox_messages", Columns: panetest.Table().Columns}})
		if view := panetest.Plain(p.View()); !strings.Contains(view, want) {
			t.Errorf("%s: no %q in an empty table:\n%s", lang, want, view)
		}
	}
}
