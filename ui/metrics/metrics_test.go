package metrics

import (
	"regexp"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

func TestMain(m *testing.M) { panetest.Main(m) }

func TestMetricsPaneGolden(t *testing.T) {
	m := New(panetest.Styles())
	m, _ = m.Update(OraclesMsg{panetest.Oracles()})
	m.SetSize(44, 7)
	panetest.Golden(t, "metrics_44", m.View())
}

func TestMetricsPaneS24Golden(t *testing.T) {
	m := New(panetest.Styles())
	m, _ = m.Update(OraclesMsg{panetest.Oracles()})
	x := sim.Metrics{Pipeline: "outbox"}
	x.OutboxPendingTotal, x.OldestPendingAge = 1, 31*time.Second
	x.PublishesPerSecond, x.AttemptsPerMessage = 0.5, 2
	x.ExpiredLeasesRecovered, x.InboxDuplicatesIgnored = 1, 2
	x.OccurredToPublished = engine.LatencySummary{Count: 1, P50: 31 * time.Second, P99: 31 * time.Second}
	m, _ = m.Update(MetricsMsg{[]sim.Metrics{x}})
	m.SetSize(50, 10)
	panetest.Golden(t, "metrics_s24_50", m.View())
}

// At the right pane's width of a 120-column screen (45), a latency of a
// minute is drawn whole: its row's column gives way, not its p99.
func TestMetricsPaneLatencyWhole(t *testing.T) {
	m := New(panetest.Styles())
	x := sim.Metrics{Pipeline: "outbox"}
	x.OccurredToPublished = engine.LatencySummary{Count: 2, P50: 62 * time.Second, P99: 62 * time.Second}
	x.PublishedToProcessed = engine.LatencySummary{Count: 2, P50: 31 * time.Second, P99: 31 * time.Second}
	m, _ = m.Update(MetricsMsg{[]sim.Metrics{x}})
	for _, w := range []int{40, 45} {
		m.SetSize(w, 12)
		scr := panetest.Plain(m.View())
		for _, want := range []string{`occurred → published\s+p50 1m2s p99 1m2s\n`, `published → processed\s+p50 31s p99 31s\n`} {
			if !regexp.MustCompile(want).MatchString(scr) {
				t.Errorf("width %d: lacks %s:\n%s", w, want, scr)
			}
		}
	}
}
