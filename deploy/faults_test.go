package deploy

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/fault"
	"github.com/outboxlab/outboxlab/engine/jetstream"
	"github.com/outboxlab/outboxlab/httpapi"
	"github.com/outboxlab/outboxlab/pg/pgtest"
)

// The last fault armed on an actor is the one that fires and the one its
// state names: a crash armed over a stall crashes, a stall armed over a
// crash stalls and does not crash (before, both stayed armed, the state
// said stall and the crash fired).
func TestTheLastFaultArmedFires(t *testing.T) {
	t.Parallel()
	ev := engine.Event{Checkpoint: "relay.claimed"}
	for _, tc := range []struct {
		name      string
		arm       func(f *faults) error
		want      fault.Fault
		wantCrash bool
	}{
		{"stall then crash", func(f *faults) error {
			if err := f.armStall("relay-1", 10*time.Millisecond); err != nil {
				return err
			}
			return f.armCrash("relay-1")
		}, fault.Crash, true},
		{"crash then stall", func(f *faults) error {
			if err := f.armCrash("relay-1"); err != nil {
				return err
			}
			return f.armStall("relay-1", 10*time.Millisecond)
		}, fault.Stall, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFaults(nil, []string{"relay-1"}, engine.SystemClock{})
			if err := tc.arm(f); err != nil {
				t.Fatal(err)
			}
			if got := f.snapshot()[0].Armed; got != tc.want {
				t.Errorf("armed %v, want %v", got, tc.want)
			}
			err := f.hook("relay-1")(context.Background(), ev)
			if crashed := errors.Is(err, engine.ErrCrash); crashed != tc.wantCrash {
				t.Errorf("at the checkpoint: %v, want crash %v", err, tc.wantCrash)
			}
			if err := f.hook("relay-1")(context.Background(), ev); err != nil {
				t.Errorf("a second checkpoint: %v, want nothing armed left", err)
			}
		})
	}
}

// The faults API of a deployment as live runs it (two accounting workers),
// over its real listener: every actor the screen numbers (Actors) is
// addressable by crash and stall; another method is 405 with Allow: POST
// (it was 404, as if the path did not exist); an unknown actor, fault or
// broker operation is 404 naming what there is; a bad for= is 400.
func TestEveryActorOnTheScreenIsAddressable(t *testing.T) {
	t.Parallel()
	_, db := pgtest.DB(t)
	url := pgtest.Server(t).DatabaseURL(db)
	e, err := httpapi.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	j, err := OpenJetStream(context.Background(), BrokerChoice{Kind: BrokerNATS}, t.TempDir(), jetstream.Config{Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(j.Close)
	ctx, cancel := context.WithCancel(context.Background())
	d, err := Launch(ctx, Options{DatabaseURL: url, Broker: j.Broker, HTTP: e, Server: j.Server, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); d.Wait() })
	base := "http://" + e.Addr

	do := func(method, path string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}
	var names []string
	for _, a := range d.Actors() {
		names = append(names, a.Name)
		for _, p := range []string{"/faults/stall/" + a.Name + "?for=50ms", "/faults/crash/" + a.Name} {
			if resp, body := do("POST", p); resp.StatusCode != http.StatusAccepted || !strings.HasPrefix(body, "armed: "+a.Name) {
				t.Errorf("POST %s: %s %q, want 202 armed", p, resp.Status, body)
			}
		}
	}
	if !slices.Contains(names, "accounting-2") {
		t.Errorf("actors %v: want accounting-2, the second worker", names)
	}
	for _, p := range []string{"/faults/crash/relay-1", "/faults/stall/accounting-2?for=1s", "/faults/broker/stop", "/faults/broker/start"} {
		for _, m := range []string{"GET", "HEAD", "PUT", "DELETE"} {
			if resp, body := do(m, p); resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
				t.Errorf("%s %s: %s, Allow %q: %s; want 405 with Allow: POST", m, p, resp.Status, resp.Header.Get("Allow"), body)
			}
		}
	}
	for _, tc := range []struct {
		path   string
		status int
		says   string
	}{
		{"/faults/crash/relay-9", http.StatusNotFound, "accounting-2"},
		{"/faults/stall/relay-9?for=1s", http.StatusNotFound, "accounting-2"},
		{"/faults/stall/relay-1?for=2h", http.StatusBadRequest, "1h"},
		{"/faults/stall/relay-1", http.StatusBadRequest, "?for="},
		{"/faults/broker/restart", http.StatusNotFound, "/faults/broker/stop"},
		{"/faults/pause/relay-1", http.StatusNotFound, "/faults/crash/ACTOR"},
		{"/faults", http.StatusNotFound, "/faults/crash/ACTOR"},
	} {
		resp, body := do("POST", tc.path)
		if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != "application/problem+json" || !strings.Contains(body, tc.says) {
			t.Errorf("POST %s: %s %s, want %d problem+json saying %q", tc.path, resp.Status, body, tc.status, tc.says)
		}
	}
}
