package jetstream

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/enginetest"
	"github.com/outboxlab/outboxlab/engine/vclock"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/pg/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// bundle is a fresh database, a virtual clock for the engine's actors, and
// an embedded JetStream server (its store in the test's temp dir) with the
// two consumers' durable consumers. JetStream's own timers (AckWait, the
// dedup window) run on wall time: tests make them short.
type bundle struct {
	pool    *pgxpool.Pool
	connect engine.Connect
	clock   *vclock.Clock
	server  *Server
	nc      *nats.Conn
	broker  *Broker
}

func setup(t testing.TB, cfg Config) *bundle {
	t.Helper()
	pool, name := pgtest.DB(t)
	srv, err := StartServer(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	nc, err := srv.Connect("test", 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	b := &bundle{pool: pool, connect: engine.ConnectURL(pgtest.Server(t).DatabaseURL(name)), clock: enginetest.NewClock(),
		server: srv, nc: nc}
	b.broker = b.open(t, cfg)
	return b
}

// open opens the pipeline's broker on b.nc and subscribes both consumers.
func (b *bundle) open(t testing.TB, cfg Config) *Broker {
	t.Helper()
	ctx := context.Background()
	br, err := Open(ctx, b.nc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(br.Close)
	for _, sub := range []string{"accounting", "notifications"} {
		if err := br.Subscribe(ctx, engine.TopicPayments, sub); err != nil {
			t.Fatal(err)
		}
	}
	return br
}

func (b *bundle) seed(t testing.TB, n int) []uuid.UUID {
	t.Helper()
	w := engine.NewWriter(engine.WriterConfig{Connect: b.connect, Clock: b.clock})
	t.Cleanup(func() { _ = w.Close(context.Background()) })
	reqs := make([]engine.PaymentRequest, n)
	for i := range reqs {
		reqs[i] = engine.PaymentRequest{ClientID: fmt.Sprintf("client-%d", i), AmountCents: 1250, Currency: "EUR"}
	}
	resps, err := w.CreatePayments(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]uuid.UUID, n)
	for i, r := range resps {
		ids[i] = r.EventID
	}
	return ids
}

func (b *bundle) relay(t testing.TB, name string, hook engine.Hook) *engine.Relay {
	r := engine.NewRelay(engine.RelayConfig{Name: name, Connect: b.connect, Publisher: b.broker, Clock: b.clock, Hook: hook,
		PublishBatches: true})
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	return r
}

func (b *bundle) consumer(t testing.TB, name string, hook engine.Hook) *engine.Consumer {
	c := engine.NewConsumer(engine.ConsumerConfig{Name: name, Connect: b.connect, Subscriber: b.broker, Clock: b.clock, Hook: hook})
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

func (b *bundle) count(t testing.TB, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := b.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// pending is what JetStream still holds for a consumer: not delivered, and
// delivered but unacknowledged.
func (b *bundle) pending(t testing.TB, name string) (waiting, unacked int) {
	t.Helper()
	w, u, err := b.broker.Pending(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return w, u
}

// faultAt returns a hook that answers err the first time cp is reached.
func faultAt(cp engine.Checkpoint, err error) engine.Hook {
	var once sync.Once
	return func(_ context.Context, ev engine.Event) error {
		var out error
		if ev.Checkpoint == cp {
			once.Do(func() { out = err })
		}
		return out
	}
}

// connected waits until nc is connected again (after a Start).
func connected(t testing.TB, nc *nats.Conn) {
	t.Helper()
	testrun.Awaited(t, 5*time.Second, "reconnected", nc.Status, func(nats.Status) bool { return nc.IsConnected() })
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

// next steps c until it handles a delivery (2 s at most). JetStream acks a
// publish once the stream has stored it; its consumers learn of it a moment
// later, so a pull right after the ack may still find nothing.
func next(t testing.TB, c *engine.Consumer) engine.ConsumeResult {
	t.Helper()
	var res engine.ConsumeResult
	testrun.Eventually(t, 2*time.Second, "a delivery handled", func() bool {
		var err error
		if res, err = c.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
		return res.Outcome != engine.OutcomeIdle
	})
	return res
}

// idle says that c finds nothing for a while (200 ms): what was dropped
// is not merely late.
func idle(t testing.TB, c *engine.Consumer) engine.ConsumeResult {
	t.Helper()
	end := time.Now().Add(200 * time.Millisecond)
	for {
		res, err := c.Step(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != engine.OutcomeIdle || time.Now().After(end) {
			return res
		}
		time.Sleep(10 * time.Millisecond) // pacing: a consumer asking every 10 ms through the window
	}
}
