package ui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/catalog"
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

// The hint's key line says what each key does in the learner's language:
// "`p` request · `D` drain · step relay-2 · advance 31s" was the scene
// language's English under a Spanish lesson, and "space" a key Spanish
// calls espacio.
func TestHintKeyLineInTheLearnersLanguage(t *testing.T) {
	d := newDriver(t, Options{Lesson: "race", Lang: "es"})
	d.press("h")
	hint := strings.ReplaceAll(d.M.lesson.KeyHint(), "\u00a0", " ")
	if !strings.Contains(hint, "`m 3 4` mover accounting hasta consumer.inbox_inserted") || !strings.Contains(hint, "`p` enviar un pago") {
		t.Errorf("the Spanish hint does not say its keys in Spanish: %s", hint)
	}
	steps := []scenes.Step{{Cmd: "request"}, {Cmd: "run"}, {Cmd: "step", Args: []string{"relay-1"}}, {Cmd: "advance", Args: []string{"31s"}},
		{Cmd: "drain"}, {Cmd: "crash", Args: []string{"relay-1", "at", "relay.published"}}, {Cmd: "restart", Args: []string{"relay-1"}},
		{Cmd: "duplicate"}, {Cmd: "broker", Args: []string{"down"}}}
	hint = strings.ReplaceAll(keyHint(catalog.For("es"), steps, d.M.actors, d.M.settings), "\u00a0", " ")
	english := regexp.MustCompile(`\b(request|run|step|advance|drain|crash|restart|duplicate|broker down|space)\b`)
	if bad := english.FindAllString(hint, -1); len(bad) > 0 {
		t.Errorf("English %q in the Spanish hint: %s", bad, hint)
	}
	if !strings.Contains(hint, "`espacio` ejecutar") || !strings.Contains(hint, "adelantar el reloj 31s") {
		t.Errorf("the Spanish hint: %s", hint)
	}
	en := keyHint(catalog.For("en"), steps, d.M.actors, d.M.settings)
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
