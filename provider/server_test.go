package provider_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/provider"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// setup is a provider on a real loopback listener and its own database.
func setup(t *testing.T) (*provider.Server, *pgxpool.Pool) {
	t.Helper()
	pool, _ := pgtest.DB(t)
	srv, err := provider.Start(pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	return srv, pool
}

func post(t *testing.T, url, key, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/charges", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func decode(t *testing.T, resp *http.Response) provider.Charge {
	t.Helper()
	var ch provider.Charge
	if err := json.NewDecoder(resp.Body).Decode(&ch); err != nil {
		t.Fatal(err)
	}
	return ch
}

// charges is what the provider's database holds for a payment: psql's view.
func charges(t *testing.T, pool *pgxpool.Pool, pay uuid.UUID) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM provider.charges WHERE payment_id = $1`, pay).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func body(pay uuid.UUID, cents int) string {
	b, _ := json.Marshal(map[string]any{"payment_id": pay, "amount_cents": cents, "currency": "EUR"})
	return string(b)
}

func TestRepeatedKeyReplaysTheFirstCharge(t *testing.T) {
	srv, pool := setup(t)
	pay := uuid.New()
	first := post(t, srv.URL(), "k-1", body(pay, 1250))
	if first.StatusCode != http.StatusCreated || first.Header.Get(provider.HeaderReplayed) != "" {
		t.Fatalf("first call: %s replayed=%q", first.Status, first.Header.Get(provider.HeaderReplayed))
	}
	a := decode(t, first)
	again := post(t, srv.URL(), "k-1", body(pay, 1250))
	if again.StatusCode != http.StatusCreated || again.Header.Get(provider.HeaderReplayed) != "true" {
		t.Fatalf("repeat: %s replayed=%q", again.Status, again.Header.Get(provider.HeaderReplayed))
	}
	if b := decode(t, again); b != a {
		t.Errorf("replayed answer %+v, want the first %+v", b, a)
	}
	if n := charges(t, pool, pay); n != 1 {
		t.Errorf("charges with one key = %d, want 1", n)
	}
	reused := post(t, srv.URL(), "k-1", body(pay, 990))
	if reused.StatusCode != http.StatusUnprocessableEntity || reused.Header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("key reused with another amount: %s %s, want 422 problem+json", reused.Status, reused.Header.Get("Content-Type"))
	}
	// Without a key the provider cannot tell a retry from a new charge.
	post(t, srv.URL(), "", body(pay, 1250))
	post(t, srv.URL(), "", body(pay, 1250))
	if n := charges(t, pool, pay); n != 3 {
		t.Errorf("charges after two calls without a key = %d, want 3", n)
	}
}

func TestConcurrentSameKeyChargesOnce(t *testing.T) {
	srv, pool := setup(t)
	pay := uuid.New()
	const callers = 16
	ids := make([]provider.Charge, callers)
	replayed := make([]bool, callers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range callers {
		wg.Go(func() {
			<-start
			req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/charges", strings.NewReader(body(pay, 700)))
			req.Header.Set("Idempotency-Key", "same")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				t.Errorf("caller %d: %s", i, resp.Status)
				return
			}
			replayed[i] = resp.Header.Get(provider.HeaderReplayed) == "true"
			if err := json.NewDecoder(resp.Body).Decode(&ids[i]); err != nil {
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	if n := charges(t, pool, pay); n != 1 {
		t.Fatalf("%d concurrent calls with one key made %d charges, want 1", callers, n)
	}
	fresh := 0
	for i := range callers {
		if ids[i] != ids[0] {
			t.Errorf("caller %d got charge %+v, caller 0 %+v", i, ids[i], ids[0])
		}
		if !replayed[i] {
			fresh++
		}
	}
	if fresh != 1 {
		t.Errorf("%d answers not marked replayed, want 1", fresh)
	}
}

func TestBadBodyIs400Problem(t *testing.T) {
	srv, pool := setup(t)
	pay := uuid.New()
	for _, tc := range []struct{ name, body, detail string }{
		{"not json", `{"payment_id":`, "not a charge"},
		{"unknown member", `{"payment_id":"` + pay.String() + `","amount_cents":5,"currency":"EUR","tip":1}`, "unknown field"},
		{"no payment", `{"amount_cents":5,"currency":"EUR"}`, "payment_id"},
		{"zero amount", `{"payment_id":"` + pay.String() + `","amount_cents":0,"currency":"EUR"}`, "amount_cents"},
		{"bad currency", `{"payment_id":"` + pay.String() + `","amount_cents":5,"currency":"euro"}`, "currency"},
		{"two values", body(pay, 5) + body(pay, 5), "more than one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, srv.URL(), "k-"+tc.name, tc.body)
			var p struct {
				Status int    `json:"status"`
				Detail string `json:"detail"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Content-Type") != "application/problem+json" || p.Status != 400 || !strings.Contains(p.Detail, tc.detail) {
				t.Errorf("%s %s %+v, want 400 problem+json saying %q", resp.Status, resp.Header.Get("Content-Type"), p, tc.detail)
			}
		})
	}
	if n := charges(t, pool, pay); n != 0 {
		t.Errorf("bad bodies charged %d times", n)
	}
}
