package wallsim

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/simhttp"
	"github.com/outboxlab/outboxlab/telemetry/telemetrytest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// serve --http, over a real listener: payments posted at once by several
// clients are each answered 201 by the api, created_at the wall clock's
// now (it was the virtual clock's start, 2026-01-01) in whole microseconds
// as the table keeps it (the clock moved by nanoseconds), and with nobody
// stepping anything the relay and both consumers carry every event through
// as wall time passes — GET shows each published and applied by both,
// /metrics no pending row. Ending the context ends Run.
func TestLiveSimulationCarriesEveryPayment(t *testing.T) {
	srv := pgtest.Server(t)
	e, err := simhttp.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	prefix := fmt.Sprintf("livetest%d", os.Getpid())
	t.Cleanup(func() {
		_ = pg.OwnNamespace(prefix).DropAll(context.Background(), srv)
	})
	set := scenes.Settings{Mode: scenes.Outbox, Relays: 1, Lease: 30 * time.Second, Batch: 10, MaxAttempts: 5, Seed: 1}
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Server: srv, Settings: set, DBPrefix: prefix, Edge: e, Tick: 20 * time.Millisecond})
	}()
	base := "http://" + e.Addr

	const clients = 8
	ids := make([]string, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("POST", base+"/payments", strings.NewReader(fmt.Sprintf(`{"client_id":"c%d","amount_cents":%d,"currency":"EUR"}`, i, 100+i)))
			req.Header.Set("Idempotency-Key", fmt.Sprintf("live-%d", i))
			resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
			if err != nil {
				t.Errorf("client %d: %v", i, err)
				return
			}
			defer resp.Body.Close()
			var body struct {
				PaymentID string    `json:"payment_id"`
				CreatedAt time.Time `json:"created_at"`
			}
			if resp.StatusCode != http.StatusCreated || json.NewDecoder(resp.Body).Decode(&body) != nil {
				t.Errorf("client %d: %s", i, resp.Status)
			}
			if d := time.Since(body.CreatedAt); d < -time.Minute || d > time.Minute {
				t.Errorf("client %d: created_at %s, want the wall clock's now (%s)", i, body.CreatedAt, time.Now().UTC())
			}
			if !body.CreatedAt.Truncate(time.Microsecond).Equal(body.CreatedAt) {
				t.Errorf("client %d: created_at %s, finer than the microseconds the table keeps", i, body.CreatedAt)
			}
			ids[i] = body.PaymentID
		}()
	}
	wg.Wait()
	type status struct {
		Events []struct {
			State     string            `json:"state"`
			AppliedBy []json.RawMessage `json:"applied_by"`
		} `json:"events"`
	}
	for i, id := range ids {
		var decoded error
		testrun.Awaited(t, 20*time.Second, fmt.Sprintf("payment %d (%s) published and applied by both consumers", i, id), func() status {
			resp, err := http.Get(base + "/payments/" + id)
			if err != nil {
				t.Fatal(err)
			}
			var st status
			decoded = json.NewDecoder(resp.Body).Decode(&st)
			resp.Body.Close()
			return st
		}, func(st status) bool {
			return decoded == nil && len(st.Events) == 1 && st.Events[0].State == "published" && len(st.Events[0].AppliedBy) == 2
		})
	}
	if m, _ := telemetrytest.Scrape(t, base+"/metrics"); !strings.Contains(m, `outboxlab_outbox_pending_messages{pipeline="outbox"} 0`) {
		t.Errorf("/metrics: want no pending row:\n%s", m)
	}
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
