package scenes

import (
	"reflect"
	"strings"
	"testing"
)

// A scene written as text reads back to the same scene, its Spanish title
// and teaches too: what a saved session relies on.
func TestTextReadsBack(t *testing.T) {
	all, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range all {
		text := sc.Text()
		back, err := Parse(sc.Name, sc.Name+".scene", strings.NewReader(text))
		if err != nil {
			t.Fatalf("%s: %v\n%s", sc.Name, err, text)
		}
		if back.Title != sc.Title || back.Teaches != sc.Teaches || !reflect.DeepEqual(back.Translations, sc.Translations) {
			t.Errorf("%s: title, teaches or their translations\n got %q %q %+v\nwant %q %q %+v", sc.Name,
				back.Title, back.Teaches, back.Translations, sc.Title, sc.Teaches, sc.Translations)
		}
		if !reflect.DeepEqual(back.Settings, sc.Settings) {
			t.Errorf("%s: settings\n got %+v\nwant %+v", sc.Name, back.Settings, sc.Settings)
		}
		if len(back.Steps) != len(sc.Steps) {
			t.Fatalf("%s: %d steps, want %d", sc.Name, len(back.Steps), len(sc.Steps))
		}
		for i := range sc.Steps {
			if back.Steps[i].String() != sc.Steps[i].String() {
				t.Errorf("%s: step %d = %q, want %q", sc.Name, i, back.Steps[i], sc.Steps[i])
			}
		}
		var want []Expect
		for _, e := range sc.Expects {
			if e.Variant == "" {
				want = append(want, e)
			}
		}
		n := 0
		for _, e := range back.Expects {
			if e.Variant == "" {
				if n >= len(want) || e.String() != want[n].String() {
					t.Errorf("%s: expect %q out of place", sc.Name, e)
				}
				n++
			}
		}
	}
}
