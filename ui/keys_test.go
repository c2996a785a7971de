package ui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/internal/teadrive"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

// The full help (?) fits the terminal at 80 and 120 columns (and at the
// smallest terminal, 80x24), in English and Spanish, whichever pane has
// the focus, with a lesson open or not: no line wider than the terminal,
// the screen as tall as the terminal, and every key the help has on
// screen with its help.
func TestFullHelpFitsTheTerminal(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"en", "es"} {
		for _, size := range [][2]int{{80, 24}, {80, 30}, {120, 40}} {
			w, h := size[0], size[1]
			for _, tc := range []struct {
				name  string
				setup func(t *testing.T, m *Model)
			}{
				{"tables", func(t *testing.T, m *Model) { m.focus = focusTables }},
				{"compare", nil},
				{"timeline", func(t *testing.T, m *Model) { m.focus = focusTimeline }},
				{"lesson", func(t *testing.T, m *Model) {
					l, _ := panetest.Lesson(t, lang, "race")
					m.openLesson(l)
					m.focus = focusLesson
				}},
				{"quiz", func(t *testing.T, m *Model) {
					l, _ := panetest.Lesson(t, lang, "race")
					m.openLesson(l)
					m.lesson.StartQuiz()
				}},
			} {
				t.Run(fmt.Sprintf("%s/%dx%d/%s", lang, w, h, tc.name), func(t *testing.T) {
					mode := ""
					if tc.setup == nil {
						mode = "compare"
					}
					m := fixtureModelIn(t, w, h, mode, 3, lang)
					m.sim = &sim.Sim{} // keys that need a simulation are enabled; nothing calls it here
					m.lesson.SetPSQL([]string{"psql -h 127.0.0.1 -p 54321 -U outboxlab tui_naive",
						"psql -h 127.0.0.1 -p 54321 -U outboxlab tui_outbox", "password: 7qTszxzKLh3XFYa5NyDSKUPtu0BPWEIo"})
					if tc.setup != nil {
						tc.setup(t, &m)
					}
					m.setFocus()
					m.updateKeys()
					m = send(t, m, teadrive.KeyPress("?"))
					if !m.help.ShowAll {
						t.Fatal("? did not open the full help")
					}
					for i, line := range strings.Split(m.helpView(), "\n") {
						if n := ansi.StringWidth(line); n > w {
							t.Errorf("help line %d is %d cells wide, more than %d: %q", i, n, w, ansi.Strip(line))
						}
					}
					lines := strings.Split(panetest.Plain(m.render()), "\n")
					if len(lines) != h+1 { // plain ends the last line too
						t.Errorf("%d lines, want %d", len(lines)-1, h)
					}
					help := strings.Join(lines[m.layout().help.y:], "\n")
					var keys []string
					for _, col := range m.keys.FullHelp() {
						for _, b := range col {
							if b.Enabled() {
								keys = append(keys, b.Help().Key+" "+b.Help().Desc)
							}
						}
					}
					for _, col := range m.focusedHelp().FullHelp() {
						for _, b := range col {
							if b.Enabled() {
								keys = append(keys, b.Help().Key+" "+b.Help().Desc)
							}
						}
					}
					for _, k := range keys {
						key, desc, _ := strings.Cut(k, " ")
						if !regexp.MustCompile(regexp.QuoteMeta(key) + ` +` + regexp.QuoteMeta(desc)).MatchString(help) {
							t.Errorf("the help lacks %q:\n%s", k, help)
						}
					}
				})
			}
		}
	}
}
