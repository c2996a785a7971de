package telemetrytest

import (
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/internal/testrun"
)

// Budget is what one GET /metrics may take, whatever is down (four times
// that under the race detector).
var Budget = func() time.Duration {
	if raceDetector {
		return 400 * time.Millisecond
	}
	return 100 * time.Millisecond
}()

// Scrape GETs url (a /metrics page) and says how long the answer took,
// body read; it fails the test on an error or a status other than 200.
func Scrape(t testing.TB, url string) (string, time.Duration) {
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
		t.Fatalf("GET %s: %s %v\n%s", url, resp.Status, err, body)
	}
	return string(body), took
}

// ScrapeUntil scrapes url until the body has every line of want, and
// returns it; it fails the test after 15 s, with the last body: a read
// takes a scrape or two to show.
func ScrapeUntil(t testing.TB, url, what string, want ...string) string {
	t.Helper()
	var body, missing string
	defer func() {
		if missing != "" { // the wait failed
			t.Logf("%s: the last /metrics, without %q:\n%s", what, missing, body)
		}
	}()
	testrun.Eventually(t, 15*time.Second, what+": every line on /metrics", func() bool {
		body, _ = Scrape(t, url)
		missing = ""
		for _, w := range want {
			if !strings.Contains(body, w+"\n") {
				missing = w
				return false
			}
		}
		return true
	})
	return body
}

// Scrapes GETs url n times, 20 ms apart (a Prometheus scraping hard):
// each must answer within Budget and match every one of always (what a
// page says whatever is down). It returns the p99 (the slowest but none
// of 50 is past it) and the bodies.
func Scrapes(t testing.TB, url, what string, n int, always ...*regexp.Regexp) (time.Duration, []string) {
	t.Helper()
	var took []time.Duration
	var bodies []string
	for range n {
		body, d := Scrape(t, url)
		took = append(took, d)
		bodies = append(bodies, body)
		if d > Budget {
			t.Errorf("%s: a scrape took %s, past %s", what, d, Budget)
		}
		for _, rx := range always {
			if !rx.MatchString(body) {
				t.Errorf("%s: a scrape lacks %s:\n%s", what, rx, body)
			}
		}
		time.Sleep(20 * time.Millisecond) // pacing: a scrape every 20 ms, as a hard-scraping Prometheus
	}
	slices.Sort(took)
	p99 := took[(len(took)*99+99)/100-1]
	t.Logf("%s: %d scrapes, p50 %s, p99 %s, max %s", what, n, took[len(took)/2], p99, took[len(took)-1])
	return p99, bodies
}
