package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

// The step-by-step simulator's screen says which broker runs and why (the
// learner's "and with a real broker?"): the full help, opened with ?, names
// the in-process broker, its virtual clock, and outboxlab live, in the
// learner's language and within 80 columns.
func TestTheFullHelpSaysWhichBrokerRuns(t *testing.T) {
	t.Parallel()
	for lang, want := range map[string][]string{
		"en": {"broker: in-process, on the simulator's virtual clock:", "outboxlab live: the same engine on NATS JetStream"},
		"es": {"broker: en proceso, sobre el reloj virtual del simulador:", "outboxlab live: el mismo motor sobre NATS JetStream"},
	} {
		t.Run(lang, func(t *testing.T) {
			d := newDriver(t, Options{Lang: lang})
			d.Handle(tea.WindowSizeMsg{Width: 80, Height: 30})
			if strings.Contains(panetest.Plain(d.M.render()), want[0]) {
				t.Fatalf("the broker is said before ? is pressed")
			}
			d.press("?")
			screen := panetest.Plain(d.M.render())
			for _, w := range want {
				if !strings.Contains(screen, w) {
					t.Errorf("the full help does not say %q:\n%s", w, screen)
				}
			}
		})
	}
}
