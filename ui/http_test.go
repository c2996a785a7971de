package ui

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/simhttp"
)

// reply is what an HTTP client got.
type reply struct {
	status int
	header http.Header
	body   string
	err    error
}

// A workshop's curl, over a real listener on 127.0.0.1: POST /payments is
// the api actor's work — it waits in the api's queue until the learner
// moves the api by keys; the same key and body get the stored response; a
// crash at api.committed resets the client's connection, and its retry
// with the same key finds the payment (the seed's ambiguous commit, with a
// real client); a rewind resets a client still waiting. GET /payments/{id}
// and GET /metrics read the simulation's database.
func TestHTTPRequestsAreTheAPIActorsWork(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Scene: "crash-after-publish"})
	e, err := listenHTTP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d.M.http = e
	e.Simulating(d.M.sim, d.M.srv, d.M.opts.DBPrefix)
	e.Serve(func(r simhttp.Request) { d.Send(httpRequestMsg(r)) }, nil)
	t.Cleanup(e.Close)
	base := "http://" + e.Addr

	// Each request on a connection of its own: Go's transport would
	// otherwise retry a request with an Idempotency-Key on a reset by itself.
	send := func(method, path, key, body string) chan reply {
		out := make(chan reply, 1)
		go func() {
			req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
			if key != "" {
				req.Header.Set("Idempotency-Key", key)
			}
			c := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
			resp, err := c.Do(req)
			if err != nil {
				out <- reply{err: err}
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			out <- reply{status: resp.StatusCode, header: resp.Header, body: string(b)}
		}()
		return out
	}
	post := func(key string, cents int) chan reply {
		return send("POST", "/payments", key, `{"client_id":"acme","amount_cents":`+itoa(cents)+`,"currency":"EUR"}`)
	}
	// keys presses the key path of a scene command, as its hint shows it.
	keys := func(line string) {
		t.Helper()
		sc, err := scenes.Parse("t", "t.scene", strings.NewReader("title: t\nteaches: t\n"+line+"\nexpect outbox lost_events == 0\n"))
		if err != nil {
			t.Fatal(err)
		}
		path, err := keyPath(sc.Steps[0], d.M.actors, d.M.settings)
		if err != nil {
			t.Fatal(err)
		}
		d.press(path...)
	}
	arrived := func(n int) {
		t.Helper()
		d.waitFor("the request on the timeline", func(m Model) bool {
			count := 0
			for _, e := range m.timeline.Entries() {
				if e.Actor == "client" {
					count++
				}
			}
			return count >= n
		})
		d.settle()
	}
	wait := func(ch chan reply) reply {
		t.Helper()
		select {
		case r := <-ch:
			return r
		case <-time.After(30 * time.Second):
			t.Fatalf("no answer:\n%s", d.screen())
		}
		return reply{}
	}

	first := post("w-1", 1250)
	arrived(1)
	select {
	case r := <-first:
		t.Fatalf("answered before the api moved: %+v", r)
	case <-time.After(300 * time.Millisecond):
	}
	keys("finish api")
	r := wait(first)
	var created struct {
		PaymentID string `json:"payment_id"`
	}
	if r.err != nil || r.status != http.StatusCreated || json.Unmarshal([]byte(r.body), &created) != nil || created.PaymentID == "" {
		t.Fatalf("first POST: %+v", r)
	}

	again := post("w-1", 1250)
	arrived(2)
	keys("finish api")
	if r2 := wait(again); r2.status != http.StatusCreated || r2.body != r.body || r2.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the same key and body: %+v, want the stored response %q", r2, r.body)
	}

	keys("crash api at api.committed")
	lost := post("w-2", 990)
	arrived(3)
	keys("finish api")
	if r3 := wait(lost); r3.err == nil || !strings.Contains(r3.err.Error(), "reset") && !strings.Contains(r3.err.Error(), "EOF") {
		t.Fatalf("the api died after COMMIT, yet the client got %+v, want its connection reset", r3)
	}
	keys("restart api")
	retry := post("w-2", 990)
	arrived(4)
	keys("finish api")
	r4 := wait(retry)
	var found struct {
		PaymentID string `json:"payment_id"`
	}
	if r4.status != http.StatusCreated || r4.header.Get("Idempotent-Replayed") != "true" || json.Unmarshal([]byte(r4.body), &found) != nil {
		t.Fatalf("the retry after the reset: %+v, want the payment the lost answer was about", r4)
	}

	status := wait(send("GET", "/payments/"+found.PaymentID, "", ""))
	if status.status != http.StatusOK || !strings.Contains(status.body, `"state":"pending"`) {
		t.Errorf("GET the retried payment: %+v", status)
	}
	// A scrape never waits on a read of the figures: it serves the last
	// good one, and before the first read ends (on a loaded machine, a
	// second or more) there is none. A scraper's next scrape has it.
	var metrics reply
	for deadline := time.Now().Add(15 * time.Second); ; {
		metrics = wait(send("GET", "/metrics", "", ""))
		if metrics.status == http.StatusOK && strings.Contains(metrics.body, "outboxlab_up 1") || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if metrics.status != http.StatusOK || !strings.Contains(metrics.body, `outboxlab_outbox_pending_messages{pipeline="outbox"} 2`) {
		t.Errorf("GET /metrics: %d, want two pending messages:\n%s", metrics.status, metrics.body)
	}

	waiting := post("w-3", 500)
	arrived(5)
	d.press("[")
	if r5 := wait(waiting); r5.err == nil || !strings.Contains(r5.err.Error(), "reset") && !strings.Contains(r5.err.Error(), "EOF") {
		t.Errorf("a rewind left the waiting client with %+v, want its connection reset", r5)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
