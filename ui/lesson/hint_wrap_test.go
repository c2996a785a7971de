package lesson

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/screen"
)

// Every step's hint, a quote with a bar, fits the lesson pane at every
// width and keeps its bar on every line: glamour's own quote took one cell
// for a bar two cells wide, and a line that ended at the pane's edge lost
// its last word to a line of its own, without the bar (seen in lanes and
// cdc at 130 columns).
func TestEveryHintFitsThePane(t *testing.T) {
	t.Parallel()
	st := screen.Default(false)
	l := Pane{st: &st}
	for _, lang := range lessons.Langs {
		course, err := lessons.Load(lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, ls := range course {
			for i, step := range ls.Steps {
				if step.Hint == "" {
					continue
				}
				for w := 40; w <= 72; w++ {
					l.w = w
					lines := l.quote(fmt.Sprintf("**Hint.** %s", step.Hint))
					var drawn strings.Builder
					for _, line := range lines {
						plain := ansi.Strip(line)
						if ansi.StringWidth(line) > l.textWidth() || !strings.HasPrefix(plain, "│ ") {
							t.Errorf("%s/%s step %d at width %d: %q (%d cells, the pane's text %d)", lang, ls.Name, i+1, w, plain, ansi.StringWidth(line), l.textWidth())
						}
						drawn.WriteString(strings.TrimPrefix(plain, "│ "))
					}
					if got, want := squeeze(drawn.String()), squeeze("Hint. "+strings.ReplaceAll(step.Hint, "`", "")); got != want {
						t.Errorf("%s/%s step %d at width %d: drew %q, want %q", lang, ls.Name, i+1, w, got, want)
					}
				}
			}
		}
	}
}

// squeeze drops every space, so text wrapped differently compares equal.
func squeeze(s string) string {
	return strings.Join(strings.Fields(s), "")
}
