package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/engine/jetstream"
	"github.com/outboxlab/outboxlab/engine/jetstream/jstest"
	"github.com/outboxlab/outboxlab/internal/testrun"
)

// get GETs path on the deployment's API and returns its status and body.
func (s *servedDeployment) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(s.api + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// serve --broker nats://… with nobody listening at the URL, first start
// included (a database made now, no stream anywhere yet): it starts all
// the same, says loudly that nobody answers there, is alive and ready, and
// POST /payments answers 201 on PostgreSQL alone, while /metrics says the
// broker is down. Then a NATS server starts at that URL: the deployment
// opens its stream in the background, and every payment is published and
// applied once by each consumer: the outbox is what lets the service take
// writes while its broker is away.
func TestServeTakesPaymentsBeforeTheBrokerEverAnswered(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("boots PostgreSQL and a NATS server")
	}
	nats := jetstream.ServerOnPort(t.TempDir(), jstest.FreePort(t)) // a broker at a URL
	t.Cleanup(nats.Stop)
	s := startServe(t, "--broker", nats.URL(), "--data-dir", seededDataDir(t), "--log-format", "json")
	if !strings.Contains(s.out, "NOBODY ANSWERS at "+nats.URL()) {
		t.Errorf("serve does not say that nobody answers at the broker's URL:\n%s", s.out)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, body := s.get(t, path); code != http.StatusOK {
			t.Errorf("GET %s with the broker away: %d %s, want 200", path, code, body)
		}
	}
	if _, body := s.get(t, "/readyz"); !strings.Contains(body, "broker down since") {
		t.Errorf("/readyz does not say the broker is down: %s", body)
	}
	const n = 20
	for i := range n {
		s.pay(t, i) // fails the test unless 201
	}
	if _, body := s.get(t, "/metrics"); !strings.Contains(body, "\noutboxlab_broker_up 0\n") {
		t.Errorf("/metrics does not say the broker is down:\n%s", body)
	}
	if c := s.counts(t); c["payments"] != n || c["pending"] != n {
		t.Fatalf("with the broker away: %v, want %d payments, all pending", c, n)
	}
	if err := nats.Start(); err != nil {
		t.Fatal(err)
	}
	testrun.Awaited(t, 30*time.Second, "carried after NATS started", func() map[string]int64 { return s.counts(t) }, func(c map[string]int64) bool {
		return c["published"] >= n && c["accounting"] >= n && c["notifications inbox"] >= n
	})
	time.Sleep(500 * time.Millisecond) // a window for a wrong effect: a second one, if any, would land now
	c := s.counts(t)
	for name, got := range c {
		want := int64(n)
		if name == "pending" {
			want = 0
		}
		if got != want {
			t.Errorf("after NATS started: %s = %d, want %d", name, got, want)
		}
	}
	t.Logf("%d payments taken with the broker away (201 each), then carried: %v", n, c)
	// --log-format json: one object a line, a line per change of state.
	var said []string
	for line := range strings.Lines(s.stderr.String()) {
		var rec struct{ Level, Msg string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("a log line that is not JSON: %q", line)
			continue
		}
		said = append(said, rec.Level+" "+rec.Msg)
	}
	if len(said) != 2 || !strings.HasPrefix(said[0], "ERROR broker away at the start") || !strings.HasPrefix(said[1], "INFO broker up") {
		t.Errorf("the log says %q, want the broker away at the start (ERROR), then up (INFO)", said)
	}
}
