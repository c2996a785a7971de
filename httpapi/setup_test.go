package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/enginetest"
	"github.com/outboxlab/outboxlab/engine/vclock"
	"github.com/outboxlab/outboxlab/pg/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// bundle is an API on 127.0.0.1 over a DBBackend on a fresh database.
type bundle struct {
	pool   *pgxpool.Pool
	dbURL  string
	clock  *vclock.Clock
	base   string // http://127.0.0.1:port
	client *http.Client
}

func setup(t testing.TB, cfg DBConfig) *bundle {
	t.Helper()
	pool, name := pgtest.DB(t)
	clock := enginetest.NewClock()
	if cfg.Clock == nil {
		cfg.Clock = clock
	}
	backend := NewDBBackend(pool, cfg)
	srv := httptest.NewServer(NewHandler(backend))
	t.Cleanup(func() {
		srv.Close()
		if err := backend.Close(context.Background()); err != nil {
			t.Errorf("close backend: %v", err)
		}
	})
	return &bundle{pool: pool, dbURL: pgtest.Server(t).DatabaseURL(name), clock: clock, base: srv.URL, client: srv.Client()}
}

// reply is a response read in full.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// do sends one request; headers are name, value pairs (a name may repeat).
func (b *bundle) do(t testing.TB, method, path string, body io.Reader, headers ...string) reply {
	t.Helper()
	req, err := http.NewRequest(method, b.base+path, body)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	resp, err := b.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return reply{resp.StatusCode, resp.Header, data}
}

func (b *bundle) post(t testing.TB, body string, headers ...string) reply {
	t.Helper()
	return b.do(t, http.MethodPost, "/payments", strings.NewReader(body), headers...)
}

// count runs a count(*) query.
func (b *bundle) count(t testing.TB, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := b.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

const validBody = `{"client_id": "acme", "amount_cents": 1250, "currency": "EUR"}`

// created is the 201 body, as a client decodes it.
type created struct {
	PaymentID   string    `json:"payment_id"`
	EventID     string    `json:"event_id"`
	ClientID    string    `json:"client_id"`
	AmountCents int64     `json:"amount_cents"`
	Currency    string    `json:"currency"`
	CreatedAt   time.Time `json:"created_at"`
}

func mustCreated(t testing.TB, r reply) created {
	t.Helper()
	if r.status != http.StatusCreated || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d %s, want 201 application/json: %s", r.status, r.header.Get("Content-Type"), r.body)
	}
	var c created
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("201 body %s: %v", r.body, err)
	}
	if c.PaymentID == "" || c.EventID == "" || r.header.Get("Location") != "/payments/"+c.PaymentID {
		t.Fatalf("201 body %s, Location %q", r.body, r.header.Get("Location"))
	}
	return c
}

// mustProblem checks an RFC 9457 answer with status and returns it.
func mustProblem(t testing.TB, r reply, status int) problem {
	t.Helper()
	if r.status != status || r.header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("status %d %s, want %d application/problem+json: %s", r.status, r.header.Get("Content-Type"), status, r.body)
	}
	var p problem
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatalf("problem body %s: %v", r.body, err)
	}
	if p.Status != status || p.Type != "about:blank" || p.Title != http.StatusText(status) || p.Detail == "" {
		t.Fatalf("problem %+v, want status %d", p, status)
	}
	return p
}

// names lists what a problem's errors point at: "/amount_cents", "header Idempotency-Key".
func (p problem) names() []string {
	var out []string
	for _, e := range p.Errors {
		if e.Pointer != nil {
			out = append(out, *e.Pointer)
		} else {
			out = append(out, "header "+e.Header)
		}
	}
	slices.Sort(out)
	return out
}

// faultOnce returns a hook that answers err the first time cp is reached.
func faultOnce(cp engine.Checkpoint, err error) engine.Hook {
	var once sync.Once
	return func(_ context.Context, ev engine.Event) error {
		var out error
		if ev.Checkpoint == cp {
			once.Do(func() { out = err })
		}
		return out
	}
}
