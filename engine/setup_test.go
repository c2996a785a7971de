package engine

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/outboxlab/outboxlab/engine/enginetest"
	"github.com/outboxlab/outboxlab/engine/vclock"
	"github.com/outboxlab/outboxlab/pg/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// bundle is what most tests need: a fresh database, a virtual clock, a broker
// with the two consumers' subscriptions, shared counters.
type bundle struct {
	pool     *pgxpool.Pool
	connect  Connect
	clock    *vclock.Clock
	broker   *Broker
	counters *Counters
}

func setup(t testing.TB) *bundle {
	t.Helper()
	pool, name := pgtest.DB(t)
	return newBundle(t, pool, pgtest.Server(t).DatabaseURL(name))
}

// newBundle is setup on a database of any server.
func newBundle(t testing.TB, pool *pgxpool.Pool, url string) *bundle {
	t.Helper()
	clock := enginetest.NewClock()
	b := &bundle{
		pool:     pool,
		connect:  ConnectURL(url),
		clock:    clock,
		broker:   NewBroker(BrokerConfig{Clock: clock, AckTimeout: 30 * time.Second}),
		counters: &Counters{},
	}
	for _, sub := range []string{"accounting", "notifications"} {
		if err := b.broker.Subscribe(TopicPayments, sub); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func (b *bundle) writer(t testing.TB, hook Hook) *Writer {
	w := NewWriter(WriterConfig{Connect: b.connect, Clock: b.clock, Hook: hook})
	t.Cleanup(func() { _ = w.Close(context.Background()) })
	return w
}

func (b *bundle) relay(t testing.TB, name string, hook Hook) *Relay {
	r := NewRelay(RelayConfig{Name: name, Connect: b.connect, Publisher: b.broker, Clock: b.clock, Hook: hook, Counters: b.counters})
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	return r
}

func (b *bundle) consumer(t testing.TB, name string, strategy Strategy, hook Hook) *Consumer {
	c := NewConsumer(ConsumerConfig{Name: name, Strategy: strategy, Connect: b.connect, Subscriber: b.broker, Clock: b.clock,
		Hook: hook, Counters: b.counters})
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

func (b *bundle) conn(t testing.TB) *pgx.Conn {
	t.Helper()
	c, err := b.connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
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

func payment(client string) PaymentRequest {
	return PaymentRequest{ClientID: client, AmountCents: 1250, Currency: "EUR",
		TraceParent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
}

// faultAt returns a hook that answers err the first time cp is reached.
func faultAt(cp Checkpoint, err error) Hook {
	var once sync.Once
	return func(_ context.Context, ev Event) error {
		var out error
		if ev.Checkpoint == cp {
			once.Do(func() { out = err })
		}
		return out
	}
}

// pauseAt returns a hook that blocks the first time cp is reached: reached is
// closed then, and the actor goes on when release is closed.
func pauseAt(cp Checkpoint) (hook Hook, reached <-chan struct{}, release chan<- struct{}) {
	r, rel := make(chan struct{}), make(chan struct{})
	var once sync.Once
	return func(ctx context.Context, ev Event) error {
		if ev.Checkpoint != cp {
			return nil
		}
		first := false
		once.Do(func() { first = true })
		if !first {
			return nil
		}
		close(r)
		select {
		case <-rel:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}, r, rel
}

func mustErrIs(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v, want one wrapping %v", err, target)
	}
}

func must[T any](t testing.TB) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// drainConcurrently runs each relay in its own goroutine, stepping until it
// finds nothing ready, and waits for all of them.
func drainConcurrently(tb testing.TB, ctx context.Context, relays ...*Relay) {
	var wg sync.WaitGroup
	for _, r := range relays {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				res, err := r.Step(ctx)
				if err != nil {
					tb.Error(err)
					return
				}
				if res.Idle {
					return
				}
			}
		}()
	}
	wg.Wait()
}
