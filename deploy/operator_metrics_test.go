package deploy

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/engine/jetstream"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/telemetry/telemetrytest"
)

// gaugeOf reads one sample's value from a /metrics body; -1 when absent.
func gaugeOf(body, sample string) float64 {
	for line := range strings.Lines(body) {
		if rest, ok := strings.CutPrefix(line, sample+" "); ok {
			v, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
			if err == nil {
				return v
			}
		}
	}
	return -1
}

// What an operator reads on /metrics, over a real listener: the Go
// runtime's and the process's collectors; the API's requests counted and
// timed by route (the pattern, not the payment id), method and code; and
// per consumer what was published and not applied yet, and how long ago
// the oldest of it was published. accounting stalled: the 3 payments
// posted meanwhile are published, applied by notifications, and not by
// accounting (3, and their age grows with the clock); once it resumes,
// 0 again. The outbox's pending count says nothing of it: it is 0 all
// along.
func TestMetricsSayWhatAConsumerHasNotApplied(t *testing.T) {
	t.Parallel()
	l := launch(t, jetstream.Config{}, true, 1)
	first := post(t, l.base, 0)
	carried(t, l.base, 0, first)
	if err := l.Stall("accounting", time.Minute); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		post(t, l.base, i)
	}
	accounting := `outboxlab_consumer_unapplied_messages{consumer="accounting",pipeline="outbox"}`
	notifications := `outboxlab_consumer_unapplied_messages{consumer="notifications",pipeline="outbox"}`
	oldest := `outboxlab_consumer_oldest_unapplied_age_seconds{consumer="accounting",pipeline="outbox"}`
	telemetrytest.ScrapeUntil(t, l.base+"/metrics", "accounting stalled", accounting+" 3", notifications+" 0")
	l.clock.Advance(30 * time.Second) // the stall (a minute) goes on
	body := testrun.Awaited(t, 15*time.Second, oldest+" at 30 s with the clock moved 30 s", func() string {
		body, _ := telemetrytest.Scrape(t, l.base+"/metrics")
		return body
	}, func(body string) bool { return gaugeOf(body, oldest) >= 30 })
	for _, rx := range []string{
		`(?m)^go_goroutines \d+$`,
		`(?m)^process_cpu_seconds_total [0-9.e+-]+$`,
		`(?m)^outboxlab_http_requests_total\{code="201",method="post",route="/payments"\} 4$`,
		`(?m)^outboxlab_http_requests_total\{code="200",method="get",route="/payments/\{id\}"\} \d+$`,
		`(?m)^outboxlab_http_request_duration_seconds_count\{code="201",method="post",route="/payments"\} 4$`,
	} {
		if !regexp.MustCompile(rx).MatchString(body) {
			t.Errorf("/metrics lacks %s:\n%s", rx, body)
		}
	}
	if resp, err := http.Get(l.base + "/nowhere"); err == nil {
		resp.Body.Close()
	}
	telemetrytest.ScrapeUntil(t, l.base+"/metrics", "a request to no route of the API", `outboxlab_http_requests_total{code="404",method="get",route="/"} 1`)
	l.clock.Advance(time.Minute) // the stall ends
	telemetrytest.ScrapeUntil(t, l.base+"/metrics", "accounting resumed", accounting+" 0", oldest+" 0")
}
