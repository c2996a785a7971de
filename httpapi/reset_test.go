package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/google/uuid"
	"github.com/outboxlab/outboxlab/engine"
)

// S21 with a real client: the API dies at api.committed, after the payment
// committed and before it answered. The client gets no status, only a reset
// connection; its retry with the same key finds the record and learns the
// payment it could not know about. One payment exists.
func TestCrashAfterCommitResetsTheConnection(t *testing.T) {
	t.Parallel()
	b := setup(t, DBConfig{Hook: faultOnce(engine.APICommitted, engine.ErrCrash)})
	req, err := http.NewRequest(http.MethodPost, b.base+"/payments", strings.NewReader(validBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Idempotency-Key", "ambiguous")
	// A connection of its own: net/http retries a request that has an
	// Idempotency-Key by itself when a reused connection breaks, which
	// would hide the reset this test is about.
	once := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := once.Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("status %d, want the connection reset with no response", resp.StatusCode)
	}
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("the client saw %v, want a connection reset", err)
	}
	var committed string
	if err := b.pool.QueryRow(context.Background(), "SELECT id::text FROM payments").Scan(&committed); err != nil {
		t.Fatalf("the payment did not commit before the crash: %v", err)
	}

	retry := b.post(t, validBody, "Idempotency-Key", "ambiguous")
	if c := mustCreated(t, retry); c.PaymentID != committed || retry.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry answered payment %s (replayed %q), want the committed %s from the record",
			c.PaymentID, retry.header.Get("Idempotent-Replayed"), committed)
	}
	if n := b.count(t, "SELECT count(*) FROM payments"); n != 1 {
		t.Errorf("%d payments, want 1", n)
	}
}

// A COMMIT whose reply was lost is settled by DBBackend before it answers,
// with or without a key: one payment, and the client sees a plain 201.
func TestLostCommitReplyIsResolved(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"k1", ""} {
		t.Run(fmt.Sprintf("key %q", key), func(t *testing.T) {
			t.Parallel()
			lose := faultOnce(engine.APIInserted, engine.ErrLoseCommitReply)
			var begins atomic.Int32
			b := setup(t, DBConfig{Hook: func(ctx context.Context, ev engine.Event) error {
				if ev.Checkpoint == engine.APIBegin {
					begins.Add(1)
				}
				return lose(ctx, ev)
			}})
			var headers []string
			if key != "" {
				headers = []string{"Idempotency-Key", key}
			}
			r := b.post(t, validBody, headers...)
			c := mustCreated(t, r)
			if r.header.Get("Idempotent-Replayed") != "" {
				t.Errorf("the request's own outcome says Idempotent-Replayed")
			}
			if n := b.count(t, "SELECT count(*) FROM payments WHERE id = $1", c.PaymentID); n != 1 {
				t.Errorf("payment %s: %d rows, want 1", c.PaymentID, n)
			}
			if n := b.count(t, "SELECT count(*) FROM payments"); n != 1 {
				t.Errorf("%d payments, want 1", n)
			}
			if begins.Load() != 2 {
				t.Errorf("the writer ran %d times, want 2: the lost reply, then the retry that settles it", begins.Load())
			}
		})
	}
}

// stubBackend answers every call with err.
type stubBackend struct{ err error }

func (s stubBackend) CreatePayment(context.Context, engine.PaymentRequest) (engine.PaymentResponse, error) {
	return engine.PaymentResponse{}, s.err
}

func (s stubBackend) Payment(context.Context, uuid.UUID) (engine.PaymentStatus, error) {
	return engine.PaymentStatus{}, s.err
}

// What a Backend's error becomes, for a backend that is not the database
// (the simulator's): the status, and Retry-After where a retry is safe.
func TestBackendErrorStatuses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		err        error
		status     int
		retryAfter bool
	}{
		{fmt.Errorf("create: %w", engine.ErrIdempotencyConflict), http.StatusUnprocessableEntity, false},
		{fmt.Errorf("create: %w", engine.ErrInvalidRequest), http.StatusBadRequest, false},
		{fmt.Errorf("create: %w", engine.ErrNotFound), http.StatusNotFound, false},
		{fmt.Errorf("create: %w", engine.ErrDuplicate), http.StatusConflict, false},
		{fmt.Errorf("create: %w", engine.ErrAmbiguousCommit), http.StatusServiceUnavailable, true},
		{fmt.Errorf("create: %w", engine.ErrConnection), http.StatusServiceUnavailable, true},
		{fmt.Errorf("create: %w", engine.ErrCommitFailed), http.StatusServiceUnavailable, true},
		{fmt.Errorf("create: %w", engine.ErrSerialization), http.StatusServiceUnavailable, true},
		{fmt.Errorf("create: %w", context.DeadlineExceeded), http.StatusGatewayTimeout, false},
		{errors.New("something else"), http.StatusInternalServerError, false},
	}
	for _, tc := range cases {
		srv := httptest.NewServer(NewHandler(stubBackend{tc.err}))
		b := &bundle{base: srv.URL, client: srv.Client()}
		for _, r := range []reply{b.post(t, validBody), b.do(t, http.MethodGet, "/payments/0190a8c4-6b1e-7c3a-9f2d-1e5b7a9c3d4f", nil)} {
			mustProblem(t, r, tc.status)
			if got := r.header.Get("Retry-After") != ""; got != tc.retryAfter {
				t.Errorf("%v: Retry-After %q", tc.err, r.header.Get("Retry-After"))
			}
		}
		srv.Close()
	}
	srv := httptest.NewServer(NewHandler(stubBackend{fmt.Errorf("api died: %w", ErrResetConnection)}))
	defer srv.Close()
	if resp, err := srv.Client().Post(srv.URL+"/payments", "application/json", strings.NewReader(validBody)); err == nil {
		resp.Body.Close()
		t.Errorf("ErrResetConnection answered %d, want no response", resp.StatusCode)
	}
}
