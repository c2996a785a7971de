package workshop

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/outboxlab/outboxlab/internal/testrun"

	"github.com/outboxlab/outboxlab/lessons"
)

// TestAPublicPlayground is the setting the README gives a public host:
// the web door alone, --anonymous, --no-report, a short --web-idle. The
// page asks no name; two learners, one who typed a name and one who gave
// none, are learner_1 and learner_2; the one who leaves is off the list
// with their folder gone; E writes nothing; the idle one is ended.
func TestAPublicPlayground(t *testing.T) {
	r := startRoom(t, Config{SSH: noSSH, Web: "127.0.0.1:0", Anonymous: true, NoReport: true, WebIdle: 4 * time.Second})
	res, err := http.Get(webURL(r, "/"))
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if strings.Contains(string(page), `id="name"`) {
		t.Errorf("the anonymous room's page asks a name:\n%s", page)
	}

	ana := joinWeb(t, r, "ana", "", 120, 40)
	waitLearner(t, r, "learner_1", "ready", func(v LearnerView) bool { return v.Ready })
	other := joinWeb(t, r, "", "", 120, 40)
	waitLearner(t, r, "learner_2", "ready", func(v LearnerView) bool { return v.Ready })
	ana.waitText("learner_1")
	for _, v := range r.Learners() {
		if v.ID == "ana" || v.User == "ana" {
			t.Errorf("the name ana typed is on the room's list: %+v", v)
		}
	}
	ana.keys("p", "D")
	waitLearner(t, r, "learner_1", "past the first step", func(v LearnerView) bool { return v.Place == lessons.PlacePassed })
	dir := filepath.Join(r.dir, "learners", "learner_1")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("learner_1's folder while connected: %v", err)
	}
	ana.c.CloseNow()
	type left struct {
		Listed bool
		Folder error
	}
	testrun.Awaited(t, 30*time.Second, "learner_1 left: no longer listed, its folder gone", func() left {
		r.mu.Lock()
		_, listed := r.learners["learner_1"]
		r.mu.Unlock()
		_, err := os.Stat(dir)
		return left{listed, err}
	}, func(l left) bool { return !l.Listed && errors.Is(l.Folder, os.ErrNotExist) })
	if _, err := r.WriteReport(filepath.Join(t.TempDir(), "class")); !errors.Is(err, errNoReport) {
		t.Errorf("a report in a room with --no-report: %v", err)
	}
	m := instructorModel{room: r, st: roomStyles(), w: wordsFor("en"), width: 120, height: 30}
	if _, s := screenText(m); strings.Contains(s, "E report") {
		t.Errorf("the room's keys offer E:\n%s", s)
	}
	select {
	case <-other.ended: // learner_2 pressed nothing: --web-idle ended them
	case <-time.After(30 * time.Second):
		t.Fatal("the idle learner was never ended")
	}
}

// TestAnonymousNamesGoOnPastAnEarlierRoomsLearners: learner_N folders an
// earlier room left are not given to new learners.
func TestAnonymousNamesGoOnPastAnEarlierRoomsLearners(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"learner_3", "learner_12", "learner_x", "ana"} {
		if err := os.Mkdir(filepath.Join(dir, name), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if got := lastAnonymous(dir); got != 12 {
		t.Errorf("lastAnonymous: %d; want 12", got)
	}
}

// TestTheCapReadsXForwardedForOnlyFromATrustedProxy: a room of one
// WebSocket per address, behind a proxy on 127.0.0.1. Trusted, the proxy's
// X-Forwarded-For tells two learners apart, and a client's own entry
// further left does not get one past the cap; untrusted, the header is
// ignored and every WebSocket counts as the proxy's.
func TestTheCapReadsXForwardedForOnlyFromATrustedProxy(t *testing.T) {
	dial := func(r *Room, forwarded string) (*websocket.Conn, int) {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		h := http.Header{"Origin": {"http://" + r.WebAddr()}, "X-Forwarded-For": {forwarded}}
		c, res, err := websocket.Dial(ctx, "ws://"+r.WebAddr()+"/join", &websocket.DialOptions{HTTPHeader: h})
		if err != nil {
			if res == nil {
				t.Fatal(err)
			}
			return nil, res.StatusCode
		}
		t.Cleanup(func() { c.CloseNow() })
		return c, http.StatusSwitchingProtocols
	}
	trusted := startRoom(t, Config{SSH: noSSH, Web: "127.0.0.1:0", WebPerAddress: 1, WebTrustProxy: "127.0.0.1"})
	for _, c := range []struct {
		forwarded string
		want      int
	}{
		{"203.0.113.5", http.StatusSwitchingProtocols},
		{"203.0.113.6", http.StatusSwitchingProtocols},
		{"203.0.113.5", http.StatusTooManyRequests},
		{"198.51.100.1, 203.0.113.5", http.StatusTooManyRequests}, // the client wrote the first
	} {
		if _, got := dial(trusted, c.forwarded); got != c.want {
			t.Errorf("trusted proxy, X-Forwarded-For %q: %d; want %d", c.forwarded, got, c.want)
		}
	}
	untrusted := startRoom(t, Config{SSH: noSSH, Web: "127.0.0.1:0", WebPerAddress: 1})
	if _, got := dial(untrusted, "203.0.113.5"); got != http.StatusSwitchingProtocols {
		t.Errorf("the first WebSocket: %d", got)
	}
	if _, got := dial(untrusted, "203.0.113.6"); got != http.StatusTooManyRequests {
		t.Errorf("no proxy trusted, a second WebSocket with another X-Forwarded-For: %d; want %d (the header ignored)", got, http.StatusTooManyRequests)
	}
}
