package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/outboxlab/outboxlab/engine/enginetest"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
)

// S25 #1, S7: whatever stops the transaction, neither the payment nor its
// event nor the idempotency record exists.
func TestRollbackLeavesNeitherPaymentNorEvent(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		hook Hook
		want error
	}{
		{"commit fails", faultAt(APIInserted, ErrFailCommit), ErrCommitFailed},
		{"crash before commit", faultAt(APIInserted, ErrCrash), ErrCrash},
		{"hook aborts", faultAt(APIInserted, context.Canceled), context.Canceled},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			req := payment("c1")
			req.IdempotencyKey = "k1"
			_, err := b.writer(t, tc.hook).CreatePayment(context.Background(), req)
			mustErrIs(t, err, tc.want)
			for _, table := range []string{"payments", "outbox_messages", "idempotency_keys"} {
				if n := b.count(t, "SELECT count(*) FROM "+table); n != 0 {
					t.Errorf("%s: %d rows after rollback, want 0", table, n)
				}
			}
		})
	}
	t.Run("second insert fails", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		w := b.writer(t, nil)
		first := must[PaymentResponse](t)(w.CreatePayment(context.Background(), payment("c1")))
		req := payment("c1")
		req.PaymentID = uuid.Must(uuid.NewV7()) // a new payment…
		req.EventID = first.EventID             // …whose outbox insert collides
		_, err := w.CreatePayment(context.Background(), req)
		mustErrIs(t, err, ErrDuplicate)
		if n := b.count(t, "SELECT count(*) FROM payments WHERE id = $1", req.PaymentID); n != 0 {
			t.Errorf("payment exists without its event")
		}
	})
}

// The committed path: one payment, one outbox row carrying the full envelope.
func TestWriterCommitsPaymentAndEnvelope(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var seen []Checkpoint
	hook := func(_ context.Context, ev Event) error { seen = append(seen, ev.Checkpoint); return nil }
	resp := must[PaymentResponse](t)(b.writer(t, hook).CreatePayment(context.Background(), payment("c1")))
	var (
		aggID, evType, trace string
		version              int64
		occurred, next       time.Time
		attempts             int
	)
	err := b.pool.QueryRow(context.Background(), `SELECT aggregate_id, event_type, trace_parent, aggregate_version, occurred_at, next_attempt_at, attempts
		FROM outbox_messages WHERE id = $1`, resp.EventID).Scan(&aggID, &evType, &trace, &version, &occurred, &next, &attempts)
	if err != nil {
		t.Fatal(err)
	}
	if aggID != resp.PaymentID.String() || evType != EventPaymentCreated || version != 1 || trace != payment("").TraceParent ||
		!occurred.Equal(b.clock.Now()) || !next.Equal(occurred) || attempts != 0 {
		t.Errorf("outbox row %s %s v%d %q %s %s %d", aggID, evType, version, trace, occurred, next, attempts)
	}
	if resp.EventID.Version() != 7 {
		t.Errorf("event id version %d, want uuid v7", resp.EventID.Version())
	}
	want := []Checkpoint{APIBegin, APIInserted, APICommitted}
	if len(seen) != len(want) || seen[0] != want[0] || seen[1] != want[1] || seen[2] != want[2] {
		t.Errorf("checkpoints %v, want %v", seen, want)
	}
}

// S3: same key and body → the stored response, nothing created; same key and
// another body → a conflict; another client may use the same key.
func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.writer(t, nil)
	ctx := context.Background()
	req := payment("c1")
	req.IdempotencyKey = "order-42"
	first := must[PaymentResponse](t)(w.CreatePayment(ctx, req))
	if first.Replayed {
		t.Fatal("first request reported as replayed")
	}
	cases := []struct {
		name      string
		mutate    func(*PaymentRequest)
		err       error
		replayed  bool
		payments  int64
		samePayID bool
	}{
		{"same key same body", func(*PaymentRequest) {}, nil, true, 1, true},
		{"same key other trace header", func(r *PaymentRequest) { r.TraceParent = "" }, nil, true, 1, true},
		{"same key other amount", func(r *PaymentRequest) { r.AmountCents++ }, ErrIdempotencyConflict, false, 1, false},
		{"same key other currency", func(r *PaymentRequest) { r.Currency = "USD" }, ErrIdempotencyConflict, false, 1, false},
		{"other client same key", func(r *PaymentRequest) { r.ClientID = "c2" }, nil, false, 2, false},
	}
	for _, tc := range cases {
		r := req
		tc.mutate(&r)
		resp, err := w.CreatePayment(ctx, r)
		if tc.err != nil {
			mustErrIs(t, err, tc.err)
		} else if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if resp.Replayed != tc.replayed || (resp.PaymentID == first.PaymentID) != tc.samePayID {
			t.Errorf("%s: replayed %v payment %s (first %s)", tc.name, resp.Replayed, resp.PaymentID, first.PaymentID)
		}
		if tc.replayed && (resp.EventID != first.EventID || resp.StatusCode != StatusCreated || !resp.CreatedAt.Equal(first.CreatedAt)) {
			t.Errorf("%s: stored response %+v differs from %+v", tc.name, resp, first)
		}
		if n := b.count(t, "SELECT count(*) FROM payments"); n != tc.payments {
			t.Errorf("%s: %d payments, want %d", tc.name, n, tc.payments)
		}
		if n := b.count(t, "SELECT count(*) FROM outbox_messages"); n != tc.payments {
			t.Errorf("%s: %d outbox rows, want %d", tc.name, n, tc.payments)
		}
	}
}

// S3 under concurrency: the (client, key) primary key, not the lookup, decides.
func TestIdempotencyKeyConcurrent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const n = 8
	req := payment("c1")
	req.IdempotencyKey = "same"
	var wg sync.WaitGroup
	start := make(chan struct{})
	ids := make([]uuid.UUID, n)
	errs := make([]error, n)
	for i := range n {
		w := b.writer(t, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			resp, err := w.CreatePayment(context.Background(), req)
			ids[i], errs[i] = resp.PaymentID, err
		}()
	}
	close(start)
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("writer %d: %v", i, errs[i])
		}
		if ids[i] != ids[0] {
			t.Errorf("writer %d got payment %s, writer 0 got %s", i, ids[i], ids[0])
		}
	}
	if got := b.count(t, "SELECT count(*) FROM payments"); got != 1 {
		t.Errorf("%d payments, want 1", got)
	}
}

// S21: the connection drops during COMMIT; the COMMIT landed; retrying the
// same request resolves it from the idempotency record: one payment.
func TestAmbiguousCommitRetried(t *testing.T) {
	t.Parallel()
	t.Run("with idempotency key", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		w := b.writer(t, faultAt(APIInserted, ErrLoseCommitReply))
		req := payment("c1")
		req.IdempotencyKey = "retry-me"
		tried, err := w.CreatePayment(context.Background(), req)
		mustErrIs(t, err, ErrAmbiguousCommit)
		// The same writer retries at once on a new connection: the first
		// COMMIT may still be in flight; the key's primary key waits for it.
		got := must[PaymentResponse](t)(w.CreatePayment(context.Background(), req))
		if !got.Replayed || got.PaymentID != tried.PaymentID || got.EventID != tried.EventID {
			t.Errorf("retry got %+v, want the replay of %s", got, tried.PaymentID)
		}
		for _, table := range []string{"payments", "outbox_messages", "idempotency_keys"} {
			if n := b.count(t, "SELECT count(*) FROM "+table); n != 1 {
				t.Errorf("%s: %d rows, want 1", table, n)
			}
		}
	})
	t.Run("without key, same ids", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		w := b.writer(t, faultAt(APIInserted, ErrLoseCommitReply))
		tried, err := w.CreatePayment(context.Background(), payment("c1"))
		mustErrIs(t, err, ErrAmbiguousCommit)
		retry := payment("c1")
		retry.PaymentID, retry.EventID = tried.PaymentID, tried.EventID // ids made once (S21)
		_, err = w.CreatePayment(context.Background(), retry)
		mustErrIs(t, err, ErrDuplicate) // it had committed: the primary key refuses a second
		if n := b.count(t, "SELECT count(*) FROM payments"); n != 1 {
			t.Errorf("%d payments, want 1", n)
		}
	})
}

// S25 #2: a crash right after COMMIT, then an immediate (power-cut) stop of
// PostgreSQL: the payment and its event survive the restart and are published.
// It runs on a server of its own so other tests' connections are not cut.
func TestCrashAfterCommitSurvivesRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("boots a dedicated PostgreSQL")
	}
	ctx := context.Background()
	srv, err := pg.Boot(ctx, pg.Options{DataDir: pgtest.DataDir(t), NoDownload: true})
	if err != nil {
		t.Fatalf("boot dedicated server: %v", err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	clock := enginetest.NewClock()
	connect := ConnectURL(srv.URL())
	w := NewWriter(WriterConfig{Connect: connect, Clock: clock, Hook: faultAt(APICommitted, ErrCrash)})
	resp, err := w.CreatePayment(ctx, payment("c1"))
	mustErrIs(t, err, ErrCrash)

	if err := srv.Crash(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	conn, err := connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var payments, events int64
	err = conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM payments WHERE id = $1), (SELECT count(*) FROM outbox_messages WHERE id = $2 AND published_at IS NULL)`,
		resp.PaymentID, resp.EventID).Scan(&payments, &events)
	if err != nil {
		t.Fatal(err)
	}
	if payments != 1 || events != 1 {
		t.Fatalf("after restart: %d payments, %d pending events; want 1 and 1", payments, events)
	}
	broker := NewBroker(BrokerConfig{Clock: clock})
	_ = broker.Subscribe(TopicPayments, "accounting")
	relay := NewRelay(RelayConfig{Name: "relay-1", Connect: connect, Publisher: broker, Clock: clock})
	defer relay.Close(ctx)
	res, err := relay.Step(ctx)
	if err != nil || res.Published != 1 || res.Marked != 1 {
		t.Fatalf("relay after restart: %+v, %v", res, err)
	}
	if broker.Stats().PublishesByID[resp.EventID] != 1 {
		t.Errorf("event not published after restart")
	}
}
