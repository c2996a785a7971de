package telemetry_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/outboxlab/outboxlab/simhttp"
	"github.com/outboxlab/outboxlab/telemetry"
)

// scrapeBudget is what one GET /metrics may take, whatever is down (four
// times that under the race detector). The timed tests are not parallel:
// scenes played beside them would time the machine, not the endpoint.
var scrapeBudget = func() time.Duration {
	if raceDetector {
		return 400 * time.Millisecond
	}
	return 100 * time.Millisecond
}()

// outageServer serves a collector of b's simulation as the edge does: a
// scrape waits telemetry.ScrapeWait at most.
func outageServer(t *testing.T, b *bundle) string {
	t.Helper()
	col := telemetry.NewCollector(telemetry.Config{Sim: func() telemetry.Simulation { return simhttp.Figures(b.se.Sim()) }, DatabaseURL: b.url,
		OnError: func(err error) { t.Logf("read: %v", err) }}) // expected: the tests take what it reads away
	srv := httptest.NewServer(telemetry.Handler(col))
	t.Cleanup(srv.Close)
	return srv.URL + "/metrics"
}

func timedScrape(t *testing.T, url string) (string, time.Duration) {
	t.Helper()
	began := time.Now()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(began)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s %v", resp.Status, err)
	}
	return string(body), took
}

func scrapeUntil(t *testing.T, url, what string, want ...string) string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		body, _ := timedScrape(t, url)
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(body, w+"\n")
		}
		if ok {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: /metrics never had %q:\n%s", what, want, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

var alwaysThere = []*regexp.Regexp{
	regexp.MustCompile(`(?m)^outboxlab_up [01]$`),
	regexp.MustCompile(`(?m)^outboxlab_broker_up [01]$`),
	regexp.MustCompile(`(?m)^outboxlab_figures_age_seconds\{source="simulation"\} [0-9.e+-]+$`),
}

// fiftyScrapes: each answers within scrapeBudget with up, broker_up and
// the age; it logs and returns the p99 and the bodies.
func fiftyScrapes(t *testing.T, url, what string) (time.Duration, []string) {
	t.Helper()
	var took []time.Duration
	var bodies []string
	for range 50 {
		body, d := timedScrape(t, url)
		took, bodies = append(took, d), append(bodies, body)
		if d > scrapeBudget {
			t.Errorf("%s: a scrape took %s, past %s", what, d, scrapeBudget)
		}
		for _, rx := range alwaysThere {
			if !rx.MatchString(body) {
				t.Errorf("%s: a scrape lacks %s:\n%s", what, rx, body)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	slices.Sort(took)
	p99 := took[(len(took)*99+99)/100-1]
	t.Logf("%s: 50 scrapes, p50 %s, p99 %s", what, took[len(took)/2], p99)
	return p99, bodies
}

// The simulation's /metrics with the outbox table locked by another
// session (a learner's psql: LOCK TABLE … ACCESS EXCLUSIVE in an open
// transaction): every scrape answers within 100 ms from the last good
// read, with up, broker_up and the age; up falls to 0 once the read is
// late, and is 1 again when the lock goes. Before: each scrape waited its
// 5 s timeout and then said only outboxlab_up 0.
func TestSimulationMetricsAnswerWithATableLocked(t *testing.T) {
	b := setup(t, "title: a\nteaches: b\nmode: outbox\n\nrequest amount=1 client=acme\ndrain\nexpect outbox published == 1\n")
	url := outageServer(t, b)
	scrapeUntil(t, url, "a first read", "outboxlab_up 1", `outboxlab_outbox_published_messages_total{pipeline="outbox"} 1`)

	ctx := context.Background()
	locker, err := pgx.Connect(ctx, b.url("outbox"))
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(ctx)
	tx, err := locker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE outbox_messages IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	p99, bodies := fiftyScrapes(t, url, "outbox_messages locked")
	if p99 > scrapeBudget {
		t.Errorf("p99 %s with a table locked", p99)
	}
	for _, body := range bodies {
		if !strings.Contains(body, `outboxlab_outbox_published_messages_total{pipeline="outbox"} 1`+"\n") {
			t.Errorf("a scrape with the table locked lost the last good figures:\n%s", body)
			break
		}
	}
	scrapeUntil(t, url, "the read late", "outboxlab_up 0")
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	scrapeUntil(t, url, "the lock released", "outboxlab_up 1")
}

// The simulation's broker down (the fault): outboxlab_broker_up 0, and
// every scrape answers within 100 ms.
func TestSimulationMetricsSayTheBrokerIsDown(t *testing.T) {
	b := setup(t, "title: a\nteaches: b\nmode: outbox\n\nbroker down\nrequest amount=1 client=acme\nexpect outbox pending == 1\n")
	url := outageServer(t, b)
	scrapeUntil(t, url, "a first read", "outboxlab_up 1", "outboxlab_broker_up 0")
	if p99, _ := fiftyScrapes(t, url, "broker down"); p99 > scrapeBudget {
		t.Errorf("p99 %s with the broker down", p99)
	}
}
