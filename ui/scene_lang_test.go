package ui

import (
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/ui/overlay/picker"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

// Under --lang es the scene's own words are Spanish too: the Scene pane
// ("lo que enseña") and the picker show its title.es: and teaches.es:; in
// English they stay English. (The picker filters on them: its own test.)
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

			p := picker.New(&st, all, nil, true)
			p.SetSize(120, 30)
			p.SelectScene(sc.Name)
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
}
