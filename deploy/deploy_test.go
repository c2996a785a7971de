package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/jetstream"
	"github.com/outboxlab/outboxlab/httpapi"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/pg/pgtest"
)

func TestMain(m *testing.M) {
	// The package's tests wait on NATS servers, elections, AckWaits and
	// deadlines more than they compute: at -parallel 2 (GOMAXPROCS here)
	// most of them waited for a slot, and the package took 22 s of wall
	// for 23 s of CPU.
	testrun.WaitMostly(4)
	pgtest.Main(m)
}

// serve --http --broker nats, over a real listener: payments posted at
// once by several clients are each answered 201, and with the engine
// running for real on embedded JetStream (no simulator, no virtual clock)
// GET shows each published and applied by both consumers. The faults, over
// the same listener: the embedded server stopped and started again (a
// payment posted while it is down waits in the outbox and is carried once
// it is back), relay-1 crashed (its successor publishes at attempt 2), an
// unknown actor and a bad duration refused. Ending the context ends Run.
func TestServeOnEmbeddedJetStreamCarriesEveryPayment(t *testing.T) {
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
	done := make(chan error, 1)
	onError := testrun.BackgroundErrors(t, relayCrashed)
	go func() {
		done <- Run(ctx, Options{DatabaseURL: url, Broker: j.Broker, HTTP: e, Server: j.Server,
			Relay:   engine.RelayConfig{PollInterval: 100 * time.Millisecond, Lease: time.Second},
			OnError: onError})
	}()
	base := "http://" + e.Addr

	const clients = 8
	ids := make([]string, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() { ids[i] = post(t, base, i) })
	}
	wg.Wait()
	for i, id := range ids {
		carried(t, base, i, id)
	}

	postFault(t, base, "/faults/broker/stop", http.StatusAccepted)
	// Not a fixed sleep: /readyz says the broker is down (the deployment
	// stays ready: the API needs only PostgreSQL).
	awaitReady(t, base, "broker down since")
	down := post(t, base, clients)
	if st := poll(t, base, clients, down, "written", func(st status) bool { return len(st.Events) == 1 }); st.Events[0].State == "published" {
		t.Fatalf("payment %d with the broker down: %+v", clients, st)
	}
	postFault(t, base, "/faults/broker/start", http.StatusAccepted)
	// The outage was the broker's, not the message's: the relay handed the
	// row back (if it had claimed it) and took it again on the broker's
	// return, first attempt, no backoff, no error kept.
	if st := carried(t, base, clients, down); st.Events[0].Attempts != 1 || st.Events[0].LastError != "" {
		t.Errorf("carried after the outage with attempts %d, last error %q; want 1 and none", st.Events[0].Attempts, st.Events[0].LastError)
	}
	awaitReady(t, base, "broker up")

	// relay-1 crashes at its next checkpoint, the claim of the next
	// payment: its supervisor starts a new relay, which claims the row again
	// once the 1 s lease has ended (attempt 2).
	postFault(t, base, "/faults/crash/relay-1", http.StatusAccepted)
	crashed := post(t, base, clients+1)
	if st := carried(t, base, clients+1, crashed); st.Events[0].Attempts != 2 {
		t.Errorf("after relay-1's crash: attempts %d, want 2", st.Events[0].Attempts)
	}
	postFault(t, base, "/faults/crash/relay-9", http.StatusNotFound)
	postFault(t, base, "/faults/stall/accounting?for=forever", http.StatusBadRequest)

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not end with its context")
	}
}

func post(t *testing.T, base string, i int) string {
	req, _ := http.NewRequest("POST", base+"/payments", strings.NewReader(fmt.Sprintf(`{"client_id":"c%d","amount_cents":%d,"currency":"EUR"}`, i, 100+i)))
	req.Header.Set("Idempotency-Key", fmt.Sprintf("deploy-%d", i))
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Errorf("client %d: %v", i, err)
		return ""
	}
	defer resp.Body.Close()
	var body struct {
		PaymentID string `json:"payment_id"`
	}
	if resp.StatusCode != http.StatusCreated || json.NewDecoder(resp.Body).Decode(&body) != nil {
		t.Errorf("client %d: %s", i, resp.Status)
	}
	return body.PaymentID
}

type status struct {
	Events []struct {
		State     string            `json:"state"`
		Attempts  int               `json:"attempts"`
		LastError string            `json:"last_error"`
		AppliedBy []json.RawMessage `json:"applied_by"`
	} `json:"events"`
}

// carried waits until GET says the payment's event is published and
// applied by both consumers.
func carried(t *testing.T, base string, i int, id string) status {
	t.Helper()
	return poll(t, base, i, id, "published and applied by both consumers", func(st status) bool {
		return len(st.Events) == 1 && st.Events[0].State == "published" && len(st.Events[0].AppliedBy) == 2
	})
}

// poll GETs the payment until its status satisfies ok, for at most 20 s.
func poll(t *testing.T, base string, i int, id, want string, ok func(status) bool) status {
	t.Helper()
	var decoded error
	return testrun.Awaited(t, 20*time.Second, fmt.Sprintf("payment %d (%s) %s", i, id, want), func() status {
		resp, err := http.Get(base + "/payments/" + id)
		if err != nil {
			t.Fatal(err)
		}
		var st status
		decoded = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		return st
	}, func(st status) bool { return decoded == nil && ok(st) })
}

// awaitReady GETs /readyz until it answers 200 saying want, for at most 20 s.
func awaitReady(t *testing.T, base, want string) {
	t.Helper()
	testrun.Awaited(t, 20*time.Second, fmt.Sprintf("/readyz 200 saying %q", want), func() string {
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.Status + " " + string(body)
	}, func(got string) bool { return strings.HasPrefix(got, "200 OK ") && strings.Contains(got, want) })
}

func postFault(t *testing.T, base, path string, want int) {
	t.Helper()
	resp, err := http.Post(base+path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != want {
		t.Fatalf("POST %s: %s, want %d", path, resp.Status, want)
	}
}

func TestParseBroker(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		kind BrokerKind
		bad  bool
	}{
		{"", BrokerInProcess, false}, {"inprocess", BrokerInProcess, false}, {"nats", BrokerNATS, false},
		{"nats://127.0.0.1:4222", BrokerNATSURL, false}, {"nats://a:4222,nats://b:4222", BrokerNATSURL, false},
		{"kafka", "", true}, {"nats://", "", true}, {"http://x:4222", "", true},
	} {
		got, err := ParseBroker(c.in)
		if (err != nil) != c.bad || got.Kind != c.kind {
			t.Errorf("ParseBroker(%q) = %+v, %v", c.in, got, err)
		}
	}
}
