package telemetry_test

import (
	"context"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/simhttp"
	"github.com/outboxlab/outboxlab/telemetry"
	"github.com/outboxlab/outboxlab/telemetry/telemetrytest"
)

// outageServer serves a collector of b's simulation as the edge does: a
// scrape waits telemetry.ScrapeWait at most. A read that fails fails the
// test, but for the errors allow matches, those the test causes on purpose.
func outageServer(t *testing.T, b *bundle, allow ...string) string {
	t.Helper()
	col := telemetry.NewCollector(telemetry.Config{Sim: func() telemetry.Simulation { return simhttp.Figures(b.se.Sim()) }, DatabaseURL: b.url,
		OnError: testrun.BackgroundErrors(t, allow...)})
	srv := httptest.NewServer(telemetry.Handler(col))
	t.Cleanup(srv.Close)
	return srv.URL + "/metrics"
}

// alwaysThere is what the simulation's /metrics says whatever is down:
// up, broker_up and the figures' age.
var alwaysThere = []*regexp.Regexp{
	regexp.MustCompile(`(?m)^outboxlab_up [01]$`),
	regexp.MustCompile(`(?m)^outboxlab_broker_up [01]$`),
	regexp.MustCompile(`(?m)^outboxlab_figures_age_seconds\{source="simulation"\} [0-9.e+-]+$`),
}

// The simulation's /metrics with the outbox table locked by another
// session (a learner's psql: LOCK TABLE … ACCESS EXCLUSIVE in an open
// transaction): every scrape answers within 100 ms from the last good
// read, with up, broker_up and the age; up falls to 0 once the read is
// late, and is 1 again when the lock goes. Before: each scrape waited its
// 5 s timeout and then said only outboxlab_up 0.
func TestSimulationMetricsAnswerWithATableLocked(t *testing.T) {
	b := setup(t, "title: a\nteaches: b\nmode: outbox\n\nrequest amount=1 client=acme\ndrain\nexpect outbox published == 1\n")
	// A read the lock holds past its statement_timeout ends, on purpose.
	url := outageServer(t, b, `canceling statement due to statement timeout \(SQLSTATE 57014\)`)
	telemetrytest.ScrapeUntil(t, url, "a first read", "outboxlab_up 1", `outboxlab_outbox_published_messages_total{pipeline="outbox"} 1`)

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
	p99, bodies := telemetrytest.Scrapes(t, url, "outbox_messages locked", 50, alwaysThere...)
	if p99 > telemetrytest.Budget {
		t.Errorf("p99 %s with a table locked", p99)
	}
	for _, body := range bodies {
		if !strings.Contains(body, `outboxlab_outbox_published_messages_total{pipeline="outbox"} 1`+"\n") {
			t.Errorf("a scrape with the table locked lost the last good figures:\n%s", body)
			break
		}
	}
	telemetrytest.ScrapeUntil(t, url, "the read late", "outboxlab_up 0")
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	telemetrytest.ScrapeUntil(t, url, "the lock released", "outboxlab_up 1")
}

// The simulation's broker down (the fault): outboxlab_broker_up 0, and
// every scrape answers within 100 ms.
func TestSimulationMetricsSayTheBrokerIsDown(t *testing.T) {
	b := setup(t, "title: a\nteaches: b\nmode: outbox\n\nbroker down\nrequest amount=1 client=acme\nexpect outbox pending == 1\n")
	url := outageServer(t, b)
	telemetrytest.ScrapeUntil(t, url, "a first read", "outboxlab_up 1", "outboxlab_broker_up 0")
	if p99, _ := telemetrytest.Scrapes(t, url, "broker down", 50, alwaysThere...); p99 > telemetrytest.Budget {
		t.Errorf("p99 %s with the broker down", p99)
	}
}
