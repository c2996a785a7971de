package httpapi

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/outboxlab/outboxlab/engine"
	"go.opentelemetry.io/otel/trace"
)

// DBConfig configures a DBBackend. Zero values take the defaults.
type DBConfig struct {
	// Writers is how many payments are written at once, each by an
	// engine.Writer on a connection of its own; default 4. Further requests
	// wait for a free writer.
	Writers int
	// Clock stamps payments and judges leases; default engine.SystemClock.
	Clock engine.Clock
	// Hook is every writer's hook (named "api"): where faults are injected.
	Hook engine.Hook
	// WriteTimeout bounds one request's write; default 30s.
	WriteTimeout time.Duration
	// TracerProvider makes each write a span (engine.WriterConfig's): child
	// of the request's traceparent, or the root of a new trace. Nil traces
	// nothing, and the backend then makes the new trace's ids itself, so a
	// payment always carries a traceparent.
	TracerProvider trace.TracerProvider
}

// DBBackend is the Backend over a real database: POST runs engine.Writer,
// GET runs engine.ReadPaymentStatus on the pool.
type DBBackend struct {
	pool    *pgxpool.Pool
	clock   engine.Clock
	timeout time.Duration
	tracing bool
	// writers holds the idle writers: an engine.Writer owns one connection
	// and serves one request at a time, so a request takes one and gives it back.
	writers chan *engine.Writer
	n       int
}

// NewDBBackend returns a backend on pool's database. The writers dial their
// own connections with the pool's configuration rather than borrow the
// pool's: a writer that crashes closes its socket under it, which a pooled
// connection must not see done behind the pool's back.
func NewDBBackend(pool *pgxpool.Pool, cfg DBConfig) *DBBackend {
	if cfg.Writers <= 0 {
		cfg.Writers = 4
	}
	if cfg.Clock == nil {
		cfg.Clock = engine.SystemClock{}
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 30 * time.Second
	}
	connCfg := pool.Config().ConnConfig
	connect := func(ctx context.Context) (*pgx.Conn, error) { return pgx.ConnectConfig(ctx, connCfg.Copy()) }
	d := &DBBackend{pool: pool, clock: cfg.Clock, timeout: cfg.WriteTimeout, tracing: cfg.TracerProvider != nil,
		writers: make(chan *engine.Writer, cfg.Writers), n: cfg.Writers}
	for range cfg.Writers {
		d.writers <- engine.NewWriter(engine.WriterConfig{Name: "api", Connect: connect, Clock: cfg.Clock, Hook: cfg.Hook,
			TracerProvider: cfg.TracerProvider})
	}
	return d
}

// CreatePayment writes req with a free writer. A writer that crashed
// (engine.ErrCrash from the hook) is reported as ErrResetConnection: the
// process the client spoke to is gone. A COMMIT whose reply was lost is
// settled before answering (see resolve).
func (d *DBBackend) CreatePayment(ctx context.Context, req engine.PaymentRequest) (engine.PaymentResponse, error) {
	if req.TraceParent == "" && !d.tracing {
		// A traced writer starts the trace with a real root span; an
		// untraced one is given the ids of one.
		req.TraceParent = newTraceParent()
	}
	var w *engine.Writer
	select {
	case w = <-d.writers:
	case <-ctx.Done():
		return engine.PaymentResponse{}, fmt.Errorf("create payment: waiting for a writer: %w", ctx.Err())
	}
	defer func() { d.writers <- w }()
	// A write that started finishes even if the client hangs up: cancelling
	// it mid-COMMIT would make the outcome ambiguous for no one's benefit.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d.timeout)
	defer cancel()
	resp, err := w.CreatePayment(wctx, req)
	if errors.Is(err, engine.ErrAmbiguousCommit) {
		resp, err = resolve(wctx, w, req, resp)
	}
	if errors.Is(err, engine.ErrCrash) {
		return resp, fmt.Errorf("%w: %w", ErrResetConnection, err)
	}
	return resp, err
}

// resolve settles a COMMIT whose reply never came as S21 teaches: the same
// request again with the ids made the first time. With a key the
// idempotency record answers; without one, a duplicate payment id means the
// first COMMIT landed. Either way nothing is created twice.
func resolve(ctx context.Context, w *engine.Writer, req engine.PaymentRequest, tried engine.PaymentResponse) (engine.PaymentResponse, error) {
	req.PaymentID, req.EventID = tried.PaymentID, tried.EventID
	resp, err := w.CreatePayment(ctx, req)
	switch {
	case err == nil:
		// The record's response is this request's own outcome, which its
		// client has not seen: it is no replay to the client.
		resp.Replayed = false
		return resp, nil
	case req.IdempotencyKey == "" && errors.Is(err, engine.ErrDuplicate):
		return tried, nil
	}
	// Still unknown: the client must retry, and learn the outcome then.
	return resp, fmt.Errorf("resolve the commit of payment %s: %w: %w", tried.PaymentID, engine.ErrAmbiguousCommit, err)
}

// Payment reads the payment's status on a pooled connection at the clock's now.
func (d *DBBackend) Payment(ctx context.Context, id uuid.UUID) (engine.PaymentStatus, error) {
	c, err := d.pool.Acquire(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return engine.PaymentStatus{}, fmt.Errorf("payment %s: %w", id, ctx.Err())
		}
		return engine.PaymentStatus{}, fmt.Errorf("payment %s: acquire a connection: %w: %w", id, engine.ErrConnection, err)
	}
	defer c.Release()
	return engine.ReadPaymentStatus(ctx, c.Conn(), id, d.clock.Now())
}

// Close waits for the writers to finish their requests and closes their
// connections. The pool is the caller's.
func (d *DBBackend) Close(ctx context.Context) error {
	var err error
	for range d.n {
		select {
		case w := <-d.writers:
			err = errors.Join(err, w.Close(ctx))
		case <-ctx.Done():
			return errors.Join(err, fmt.Errorf("close writers: %w", ctx.Err()))
		}
	}
	return err
}
