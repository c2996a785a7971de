package picker

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

func TestMain(m *testing.M) { panetest.Main(m) }

// The picker's golden draws five of the built-in scenes, by name: a scene
// added to the project changes no golden. That it lists every scene, and
// says how many, is held apart.
func TestPickerGolden(t *testing.T) {
	all, err := scenes.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var some []*scenes.Scene
	for _, sc := range all {
		if slices.Contains([]string{"dual-write-crash", "dual-write-phantom", "crash-after-publish", "crash-before-ack", "broker-down"}, sc.Name) {
			some = append(some, sc)
		}
	}
	if len(some) != 5 {
		t.Fatalf("%d of the golden's five scenes are built in", len(some))
	}
	p := New(panetest.Styles(), some, nil, true)
	p.SetSize(100, 22)
	p.SelectScene("crash-after-publish")
	panetest.Golden(t, "picker_100", p.View())

	every := New(panetest.Styles(), all, nil, true)
	if n := len(every.list.Items()); n != len(all) {
		t.Errorf("the picker lists %d items for the %d built-in scenes", n, len(all))
	}
	if title := every.list.Title; !strings.HasSuffix(title, fmt.Sprintf(" · %d", len(all))) {
		t.Errorf("the picker's title %q does not count the %d scenes", title, len(all))
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
	p := New(panetest.StylesIn("es"), all, course, true)
	p.SetSize(120, 30)
	p.Open("crash-after-publish")
	if it, ok := p.list.SelectedItem().(lessonItem); !ok || it.pos != fmt.Sprintf("1/%d", len(course)) {
		t.Fatalf("the picker first opens on %v, want lesson 1/20", p.list.SelectedItem())
	}
	p.Open("crash-after-publish")
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

// The filter reads what the learner sees: a Spanish word of the title
// finds the scene first (the fuzzy filter also matches letters strewn
// through other scenes' teaches).
func TestPickerFiltersInTheLearnersLanguage(t *testing.T) {
	all, err := scenes.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	p := New(panetest.StylesIn("es"), all, nil, true)
	p.SetSize(120, 30)
	p.list.SetFilterText("venenoso")
	if got := p.list.VisibleItems(); len(got) == 0 || got[0].(sceneItem).sc.Name != "poison-message" {
		t.Errorf("filtering on %q finds %d scenes, want poison-message first", "venenoso", len(got))
	}
}
