package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

// Under --lang es the scene's own words are Spanish too: the Scene pane
// ("lo que enseña") and the picker show its title.es: and teaches.es:, and
// the picker filters on them; in English they stay English.
func TestSceneTextInTheLearnersLanguage(t *testing.T) {
	all, err := scenes.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenes.Find(all, "crash-after-publish")
	if err != nil {
		t.Fatal(err)
	}
	const esTitle, enTitle = "La ventana de duplicación: publicado, no marcado", "The duplicate window: published, not marked"
	for _, c := range []struct {
		lang, title, teaches, not string
	}{
		{"es", esTitle, "S13. El relay publica y después marca", enTitle},
		{"en", enTitle, "S13. The relay publishes, then marks", esTitle},
	} {
		t.Run(c.lang, func(t *testing.T) {
			st := DefaultStyles(true)
			st.Words = catalog.For(c.lang)

			l := newLessonPane(&st, sc)
			l.SetSize(100, 14)
			scene := panetest.Plain(l.View())

			p := newPickerPane(&st, all, nil, true)
			p.SetSize(120, 30)
			p.selectScene(sc.Name)
			picker := panetest.Plain(p.View())

			m := fixtureModelIn(t, 160, 50, "outbox", 3, c.lang)
			screen := panetest.Plain(m.render())

			for name, view := range map[string]string{"scene pane": scene, "picker": picker, "screen": screen} {
				flat := strings.Join(strings.Fields(view), " ")
				if !strings.Contains(flat, c.title) || !strings.Contains(flat, c.teaches) {
					t.Errorf("the %s lacks %q or %q:\n%s", name, c.title, c.teaches, view)
				}
				if strings.Contains(flat, c.not) {
					t.Errorf("the %s shows %q in %s:\n%s", name, c.not, c.lang, view)
				}
			}
			if c.lang == "es" && !strings.Contains(picker, "modo outbox") {
				t.Errorf("the picker's detail does not say the mode in Spanish:\n%s", picker)
			}
		})
	}

	// The filter reads what the learner sees: a Spanish word of the title
	// finds the scene first (the fuzzy filter also matches letters strewn
	// through other scenes' teaches).
	st := DefaultStyles(true)
	st.Words = catalog.For("es")
	p := newPickerPane(&st, all, nil, true)
	p.SetSize(120, 30)
	p.list.SetFilterText("venenoso")
	if got := p.list.VisibleItems(); len(got) == 0 || got[0].(sceneItem).sc.Name != "poison-message" {
		t.Errorf("filtering on %q finds %d scenes, want poison-message first", "venenoso", len(got))
	}
}

// The picker opens first on the course's first lesson, the way in; after
// that on the scene on screen, already filtering, and its detail (in the
// learner's language) is that scene's.
func TestPickerOpensOnTheSceneOnScreen(t *testing.T) {
	all, err := scenes.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	course, err := lessons.Load("es")
	if err != nil {
		t.Fatal(err)
	}
	st := DefaultStyles(true)
	st.Words = catalog.For("es")
	p := newPickerPane(&st, all, course, true)
	p.SetSize(120, 30)
	p.open("crash-after-publish")
	if it, ok := p.list.SelectedItem().(lessonItem); !ok || it.pos != fmt.Sprintf("1/%d", len(course)) {
		t.Fatalf("the picker first opens on %v, want lesson 1/20", p.list.SelectedItem())
	}
	p.open("crash-after-publish")
	if it, ok := p.list.SelectedItem().(sceneItem); !ok || it.sc.Name != "crash-after-publish" {
		t.Fatalf("the picker opens on %v, want crash-after-publish", p.list.SelectedItem())
	}
	if !p.list.SettingFilter() {
		t.Error("the picker does not open filtering")
	}
	if view := panetest.Plain(p.View()); !strings.Contains(view, "La ventana de duplicación: publicado, no marcado  (crash-after-publish, modo outbox)") {
		t.Errorf("the picker's detail is not the scene on screen:\n%s", view)
	}
}
