package chaosrun

import (
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/chaos"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

func TestMain(m *testing.M) { testrun.Exit(m.Run()) }

// Every number of the chaos table follows the language's rules: Spanish
// wrote "7,3/s" and "27,5 s" beside "0.0%–1.9%" and "24.5%".
func TestChaosTableNumbersInTheLearnersLanguage(t *testing.T) {
	r := chaos.Report{Seed: 1, Mode: scenes.Compare, Runs: 200, Asked: 200, Elapsed: 27500 * time.Millisecond, RunsPerSecond: 7.3, Payments: 1234,
		OutboxRuns: 200, OutboxCI: [2]float64{0, 0.0188},
		NaiveRuns: 200, NaiveLostRuns: 49, NaiveLost: 51, LostCI: [2]float64{0.19, 0.31},
		NaivePhantRuns: 9, NaivePhantom: 12, PhantomCI: [2]float64{0.024, 0.084}}
	for lang, c := range map[string]struct{ want, not []string }{
		"es": {want: []string{"7,3/s", "27,5 s", "24,5 %", "0,0 %–1,9 %", "19,0 %–31,0 %"}, not: []string{"7.3", "24.5", "1.9%", "0.0%"}},
		"en": {want: []string{"7.3/s", "27.5 s", "24.5%", "0.0%–1.9%", "19.0%–31.0%"}, not: []string{"7,3", "24,5"}},
	} {
		p := New(panetest.StylesIn(lang), 1, 200, "compare", func() {})
		p, _ = p.Update(DoneMsg{ID: 1, Report: r})
		p.SetSize(140, 20)
		view := panetest.Plain(p.View())
		for _, w := range c.want {
			if !strings.Contains(view, w) {
				t.Errorf("%s: no %q in the chaos table:\n%s", lang, w, view)
			}
		}
		for _, w := range c.not {
			if strings.Contains(view, w) {
				t.Errorf("%s: %q in the chaos table:\n%s", lang, w, view)
			}
		}
	}
}
