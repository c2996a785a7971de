package wallsim

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/simhttp"
)

// client is serve --http's API over a real listener, as curl reaches it.
type client struct {
	t    *testing.T
	base string
}

// startLive runs set live behind a listener until the test ends.
func startLive(t *testing.T, set scenes.Settings) client {
	t.Helper()
	srv := pgtest.Server(t)
	e, err := simhttp.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	prefix := fmt.Sprintf("livefaults%d", os.Getpid())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Server: srv, Settings: set, DBPrefix: prefix, Edge: e, Tick: 20 * time.Millisecond})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("Run did not end with its context")
		}
		_ = pg.OwnNamespace(prefix).DropAll(context.Background(), srv)
	})
	return client{t, "http://" + e.Addr}
}

// do sends one request and reads the answer whole.
func (c client) do(method, path, body string) (*http.Response, string) {
	c.t.Helper()
	req, _ := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// fault posts a fault and checks its status.
func (c client) fault(method, path string, status int) string {
	c.t.Helper()
	resp, body := c.do(method, path, "")
	if resp.StatusCode != status {
		c.t.Fatalf("%s %s: %s %s, want %d", method, path, resp.Status, body, status)
	}
	return body
}

type payment struct {
	PaymentID string `json:"payment_id"`
}

func (c client) pay(i int) payment {
	c.t.Helper()
	resp, body := c.do("POST", "/payments", fmt.Sprintf(`{"client_id":"c%d","amount_cents":%d,"currency":"EUR"}`, i, 100+i))
	var p payment
	if resp.StatusCode != http.StatusCreated || json.Unmarshal([]byte(body), &p) != nil {
		c.t.Fatalf("payment %d: %s %s", i, resp.Status, body)
	}
	return p
}

type event struct {
	State     string            `json:"state"`
	Attempts  int               `json:"attempts"`
	AppliedBy []json.RawMessage `json:"applied_by"`
}

func (c client) event(id string) event {
	c.t.Helper()
	_, body := c.do("GET", "/payments/"+id, "")
	var st struct {
		Events []event `json:"events"`
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil || len(st.Events) != 1 {
		c.t.Fatalf("GET /payments/%s: %s", id, body)
	}
	return st.Events[0]
}

// carried waits until the payment's event is published and applied by
// both consumers, and returns it.
func (c client) carried(id string, within time.Duration) event {
	c.t.Helper()
	return testrun.Awaited(c.t, within, "payment "+id+" published and applied by both consumers", func() event { return c.event(id) },
		func(ev event) bool { return ev.State == "published" && len(ev.AppliedBy) == 2 })
}

// The README's stall-and-watch exercise under plain serve, by curl alone:
// the faults API answers as a deployment's does (same paths, 202 and what
// was armed), and the simulation takes each fault as the TUI's keys would.
// A stall of relay-1 holds what it claimed and every payment after it
// until its time is up; a crash has its supervisor start a new relay a
// second later, which publishes at attempt 2 once the lease has passed;
// the broker stopped keeps a payment in the outbox until it is started.
// accounting-2, on screen with two workers, is addressable; a GET is 405
// with Allow: POST, an unknown actor 404, a bad for= 400: plain serve takes
// the faults the README gives, as the deployment does.
func TestFaultsUnderServe(t *testing.T) {
	set := scenes.DefaultSettings()
	set.Workers, set.Lease, set.AckTimeout = 2, 3*time.Second, 2*time.Second
	c := startLive(t, set)

	first := c.pay(0)
	c.carried(first.PaymentID, 10*time.Second)

	for _, p := range []string{"/faults/crash/relay-1", "/faults/stall/relay-1?for=1s", "/faults/broker/stop", "/faults/broker/start"} {
		for _, m := range []string{"GET", "PUT", "DELETE"} {
			resp, body := c.do(m, p, "")
			if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" ||
				resp.Header.Get("Content-Type") != "application/problem+json" {
				t.Errorf("%s %s: %s Allow %q: %s, want 405 with Allow: POST", m, p, resp.Status, resp.Header.Get("Allow"), body)
			}
		}
	}
	if body := c.fault("POST", "/faults/crash/relay-9", http.StatusNotFound); !strings.Contains(body, "accounting-2") {
		t.Errorf("404 for relay-9: %s, want the actors listed", body)
	}
	c.fault("POST", "/faults/stall/accounting?for=forever", http.StatusBadRequest)
	c.fault("POST", "/faults/stall/accounting", http.StatusBadRequest)
	c.fault("POST", "/faults/broker/restart", http.StatusNotFound)
	c.fault("POST", "/faults/nothing", http.StatusNotFound)

	// Stall and watch: relay-1 freezes at its claim of the next payment
	// for 1.5 s; the payments after it wait, then all are carried.
	if body := c.fault("POST", "/faults/stall/relay-1?for=1500ms", http.StatusAccepted); body != "armed: relay-1 freezes for 1.5s at its next checkpoint\n" {
		t.Errorf("stall armed: %q", body)
	}
	stalledAt := time.Now()
	var held []payment
	for i := 1; i <= 4; i++ {
		held = append(held, c.pay(i))
	}
	// A window for a wrong publish: half a second into a 1.5 s stall,
	// none of the held payments may be out.
	time.Sleep(500 * time.Millisecond)
	for _, p := range held {
		if ev := c.event(p.PaymentID); ev.State == "published" {
			t.Errorf("payment %s published %s after relay-1 stalled for 1.5 s", p.PaymentID, time.Since(stalledAt))
		}
	}
	for _, p := range held {
		c.carried(p.PaymentID, 15*time.Second)
	}
	if took := time.Since(stalledAt); took < 1500*time.Millisecond {
		t.Errorf("the stalled relay's payments were carried after %s, before its 1.5 s stall ended", took)
	}

	// A crash: relay-1 dies at its claim, a new relay starts a second
	// later and takes the row again when the 3 s lease has passed.
	c.fault("POST", "/faults/crash/relay-1", http.StatusAccepted)
	crashed := c.pay(10)
	if ev := c.carried(crashed.PaymentID, 15*time.Second); ev.Attempts != 2 {
		t.Errorf("after relay-1's crash: attempts %d, want 2", ev.Attempts)
	}

	// Every actor on the screen is addressable, accounting-2 too.
	for _, a := range []string{"api", "relay-1", "accounting", "accounting-2", "notifications"} {
		c.fault("POST", "/faults/stall/"+a+"?for=10ms", http.StatusAccepted)
	}
	c.fault("POST", "/faults/crash/accounting-2", http.StatusAccepted)

	// The broker: a payment posted while it is down stays in the outbox.
	c.fault("POST", "/faults/broker/stop", http.StatusAccepted)
	down := c.pay(20)
	// A window for a wrong publish: the relay polls and retries within it,
	// and the payment must stay in the outbox while the broker is down.
	time.Sleep(500 * time.Millisecond)
	if ev := c.event(down.PaymentID); ev.State == "published" {
		t.Errorf("published while the broker is down: %+v", ev)
	}
	c.fault("POST", "/faults/broker/start", http.StatusAccepted)
	c.carried(down.PaymentID, 30*time.Second)
}
