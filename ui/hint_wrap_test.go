package ui

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/lessons"
)

// Every step's hint, a quote with a bar, fits the lesson pane at every
// width: glamour's quote would otherwise end one cell past it, and the
// pane would wrap that cell to a line of its own without the bar.
func TestEveryHintFitsThePane(t *testing.T) {
	st := DefaultStyles(false)
	l := lessonPane{st: &st}
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
					for _, line := range l.markdown(fmt.Sprintf("> **Hint.** %s\n\n", step.Hint)) {
						if ansi.StringWidth(line) > l.textWidth() {
							t.Errorf("%s/%s step %d at width %d: %q is %d cells, the pane's text %d", lang, ls.Name, i+1, w, ansi.Strip(line), ansi.StringWidth(line), l.textWidth())
						}
					}
				}
			}
		}
	}
}
