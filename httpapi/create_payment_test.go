package httpapi

import (
	"bytes"
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/outboxlab/outboxlab/engine"
)

const sentTrace = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

// 201: the payment, its event id, the traceparent stored with both rows.
func TestCreatePayment(t *testing.T) {
	t.Parallel()
	b := setup(t, DBConfig{})
	r := b.post(t, validBody, "Traceparent", sentTrace)
	c := mustCreated(t, r)
	if c.ClientID != "acme" || c.AmountCents != 1250 || c.Currency != "EUR" || !c.CreatedAt.Equal(b.clock.Now()) {
		t.Errorf("201 body %s", r.body)
	}
	if r.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("a new payment says Idempotent-Replayed: %q", r.header.Get("Idempotent-Replayed"))
	}
	if n := b.count(t, `SELECT count(*) FROM payments p JOIN outbox_messages m ON m.aggregate_id = p.id::text
		WHERE p.id = $1 AND m.id = $2 AND p.trace_parent = $3 AND m.trace_parent = $3 AND p.amount_cents = 1250`,
		c.PaymentID, c.EventID, sentTrace); n != 1 {
		t.Errorf("payment and event with the traceparent: %d rows, want 1", n)
	}
}

// S3: the same key and body replay the stored response, byte for byte; the
// key's quoted form is the same key; another body under it is 422.
func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	b := setup(t, DBConfig{})
	first := b.post(t, validBody, "Idempotency-Key", "k1", "Traceparent", sentTrace)
	c := mustCreated(t, first)
	b.clock.Advance(1e9)
	for _, key := range []string{"k1", `"k1"`} {
		again := b.post(t, validBody, "Idempotency-Key", key)
		mustCreated(t, again)
		if !bytes.Equal(again.body, first.body) {
			t.Errorf("key %s: replayed body\n%s\nwant the first, byte for byte\n%s", key, again.body, first.body)
		}
		if again.header.Get("Idempotent-Replayed") != "true" || again.header.Get("Location") != first.header.Get("Location") {
			t.Errorf("key %s: replay headers %v", key, again.header)
		}
	}
	// Member order and spacing are not the body: the request is the same.
	mustCreated(t, b.post(t, `{"currency":"EUR","amount_cents":1250,"client_id":"acme"}`, "Idempotency-Key", "k1"))

	other := b.post(t, `{"client_id": "acme", "amount_cents": 1251, "currency": "EUR"}`, "Idempotency-Key", "k1")
	mustProblem(t, other, http.StatusUnprocessableEntity)
	// The key belongs to a client: another client's k1 is another request.
	mustCreated(t, b.post(t, `{"client_id": "globex", "amount_cents": 1251, "currency": "EUR"}`, "Idempotency-Key", "k1"))
	if n := b.count(t, "SELECT count(*) FROM payments WHERE client_id = 'acme'"); n != 1 {
		t.Errorf("%d payments for acme, want 1 (%s)", n, c.PaymentID)
	}
}

// S18 at the API: N requests with one key at once make one payment. The
// first writer is held before its COMMIT until every request has begun, so
// the others really race it: each misses the record, inserts, waits on the
// key's unique index, gets the unique violation when the first commits, and
// answers from the record.
func TestConcurrentRequestsWithOneKey(t *testing.T) {
	t.Parallel()
	const n = 12
	var begun atomic.Int32
	allBegun := make(chan struct{})
	var holdFirst sync.Once
	var replayed atomic.Int32
	hook := func(ctx context.Context, ev engine.Event) error {
		switch ev.Checkpoint {
		case engine.APIBegin:
			if begun.Add(1) == n {
				close(allBegun)
			}
		case engine.APIInserted:
			holdFirst.Do(func() { <-allBegun })
		case engine.APIReplayed:
			replayed.Add(1)
		}
		return nil
	}
	b := setup(t, DBConfig{Writers: n, Hook: hook})
	replies := make([]reply, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { replies[i] = b.post(t, validBody, "Idempotency-Key", "same") })
	}
	wg.Wait()
	fresh := 0
	for _, r := range replies {
		mustCreated(t, r)
		if !bytes.Equal(r.body, replies[0].body) {
			t.Errorf("bodies differ:\n%s\n%s", r.body, replies[0].body)
		}
		if r.header.Get("Idempotent-Replayed") == "" {
			fresh++
		}
	}
	if fresh != 1 || replayed.Load() != n-1 {
		t.Errorf("%d created and %d replayed, want 1 and %d", fresh, replayed.Load(), n-1)
	}
	for _, table := range []string{"payments", "outbox_messages", "idempotency_keys"} {
		if got := b.count(t, "SELECT count(*) FROM "+table); got != 1 {
			t.Errorf("%s: %d rows, want 1", table, got)
		}
	}
}

// The traceparent is passed on when valid and replaced by a new trace when
// absent or invalid; a payment never fails because of it.
func TestTraceParentPassedOrStartedFresh(t *testing.T) {
	t.Parallel()
	b := setup(t, DBConfig{})
	cases := []struct {
		name, header, want string // want "" means a fresh trace
	}{
		{"valid", sentTrace, sentTrace},
		{"a later version's extra fields", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-cafe", sentTrace},
		{"absent", "", ""},
		{"uppercase hex", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01", ""},
		{"zero trace id", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", ""},
		{"version ff", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", ""},
		{"too long for 00", sentTrace + "-x", ""},
		{"garbage", "hello", ""},
	}
	for _, tc := range cases {
		var headers []string
		if tc.header != "" {
			headers = []string{"Traceparent", tc.header}
		}
		c := mustCreated(t, b.post(t, validBody, headers...))
		var stored string
		if err := b.pool.QueryRow(context.Background(), "SELECT trace_parent FROM payments WHERE id = $1", c.PaymentID).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		switch {
		case tc.want != "" && stored != tc.want:
			t.Errorf("%s: stored %q, want %q", tc.name, stored, tc.want)
		case tc.want == "" && (parseTraceParent(stored) != stored || stored == tc.header || stored[3:35] == sentTrace[3:35]):
			t.Errorf("%s: stored %q, want a new valid trace", tc.name, stored)
		}
	}
	// Two traceparent headers are invalid too.
	c := mustCreated(t, b.post(t, validBody, "Traceparent", sentTrace, "Traceparent", sentTrace))
	if n := b.count(t, "SELECT count(*) FROM payments WHERE id = $1 AND trace_parent <> $2", c.PaymentID, sentTrace); n != 1 {
		t.Error("two traceparent headers: one was used")
	}
}
