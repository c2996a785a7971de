package telemetrytest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync/atomic"
	"testing"
)

// pages serves a /metrics whose "scrapes" line counts the GETs.
func pages(t *testing.T) string {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "up 1\nscrapes %d\n", n.Add(1))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/metrics"
}

// ScrapeUntil waits for a line that shows only at the third scrape, and
// returns the page that has it.
func TestScrapeUntilWaitsForEveryLine(t *testing.T) {
	url := pages(t)
	if body := ScrapeUntil(t, url, "the third", "up 1", "scrapes 3"); body != "up 1\nscrapes 3\n" {
		t.Errorf("returned %q", body)
	}
}

// Scrapes GETs the page n times and holds each to what is always there:
// a page without it fails the test.
func TestScrapesHoldsEachToWhatIsAlwaysThere(t *testing.T) {
	url := pages(t)
	_, bodies := Scrapes(t, url, "up", 3, regexp.MustCompile(`(?m)^up 1$`))
	if len(bodies) != 3 || bodies[2] != "up 1\nscrapes 3\n" {
		t.Errorf("bodies %q", bodies)
	}
	var failed bool
	t.Run("a line missing", func(t *testing.T) {
		rec := &recorder{TB: t}
		Scrapes(rec, url, "down", 1, regexp.MustCompile(`(?m)^down 1$`))
		failed = rec.failed
	})
	if !failed {
		t.Error("a page without its line passed")
	}
}

// recorder records an Errorf instead of failing its test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
