package deploy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/jetstream"
	"github.com/outboxlab/outboxlab/httpapi"
	"github.com/outboxlab/outboxlab/telemetry"
)

// Broker is what the engine needs of one: the relays publish to it, the
// consumers receive from it (its subscriptions made already).
type Broker interface {
	engine.Publisher
	engine.Subscriber
}

// Options say what to run.
type Options struct {
	// DatabaseURL is the pipeline's database, migrated.
	DatabaseURL string
	// Broker is the broker, open (its stream and subscriptions made); or
	// nil, and Open opens it.
	Broker Broker
	// Open opens the broker when Broker is nil: Launch calls it in the
	// background, every second until it answers, while the API takes
	// payments into the outbox; the relays and consumers start once it
	// has. A failure that is engine.ErrBrokerDown is an outage.
	Open func(context.Context) (Broker, error)
	// Away is why the broker did not answer before Launch, said already:
	// the background open logs a failure only when it says something else.
	Away error
	// Logger hears every change of state: the broker lost and back, the
	// stream opened, its leader changed, a consumer stalled and resumed,
	// an actor's end, dead letters, retries summarised.
	// Nil logs nothing.
	Logger *slog.Logger
	// HTTP is where the HTTP API listens already; Launch serves it, the
	// faults (faults.go) and GET /metrics beside it. Nil serves nothing.
	HTTP *httpapi.Listener
	// Server is the embedded JetStream the broker runs on, which
	// /faults/broker/stop and /start stop and start; nil for a broker at a URL.
	Server *jetstream.Server
	// Relays is how many relays run (SKIP LOCKED keeps them apart); default 1.
	Relays int
	// Workers is how many workers the accounting consumer runs; default 1.
	// notifications runs one.
	Workers int
	// Relay is every relay's configuration beyond its name and wiring
	// (Lease, BatchSize, MaxAttempts…).
	Relay engine.RelayConfig
	// Strategy is the consumers' (default the inbox).
	Strategy engine.Strategy
	// Counters are shared by every actor; nil counts privately.
	Counters *engine.Counters
	// OnError hears an actor's unexpected end (the actor is started again
	// a second later) and a /metrics scrape that could not read the
	// figures. Nil ignores it.
	OnError func(error)
	// stallEvery and stallAfter are stallCheckEvery and stallAfter unless
	// a test shortens them.
	stallEvery, stallAfter time.Duration
	// Clock is every actor's (the payments' stamps, the relays' leases and
	// backoff, the consumers'), stamps the actors' states and is the now a
	// Snapshot measures ages at: one clock, or ages would disagree with
	// the rows. Default engine.SystemClock.
	Clock engine.Clock
}

// Consumers are the consumer names a deployment runs, each a subscription
// of the broker's.
var Consumers = []string{"accounting", "notifications"}

// Run serves the API and runs the relays and consumers until ctx ends:
// Launch, then Wait.
func Run(ctx context.Context, o Options) error {
	d, err := Launch(ctx, o)
	if err != nil {
		return err
	}
	<-ctx.Done()
	d.Wait()
	return nil
}

// Launch starts the relays and consumers (and serves the API on o.HTTP, if
// any) and returns at once with the handle that runs them: its faults, its
// payments and its figures, without HTTP. They run until ctx ends; Wait
// then waits for them and releases what Launch opened.
func Launch(ctx context.Context, o Options) (*Deployment, error) {
	if o.Relays <= 0 {
		o.Relays = 1
	}
	if o.Workers <= 0 {
		o.Workers = 1
	}
	if o.Counters == nil {
		o.Counters = &engine.Counters{}
	}
	if o.OnError == nil {
		o.OnError = func(error) {}
	}
	if o.Clock == nil {
		o.Clock = engine.SystemClock{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.stallEvery <= 0 {
		o.stallEvery = stallCheckEvery
	}
	if o.stallAfter <= 0 {
		o.stallAfter = stallAfter
	}
	if o.Broker == nil && o.Open == nil {
		return nil, errors.New("deploy: no broker, and no Open to open one")
	}
	pool, err := pgxpool.New(ctx, o.DatabaseURL)
	if err != nil {
		return nil, fmt.Errorf("deploy: %w", err)
	}
	connect := engine.ConnectURL(o.DatabaseURL)
	var actors []string
	for i := range o.Relays {
		actors = append(actors, fmt.Sprintf("relay-%d", i+1))
	}
	for _, name := range Consumers {
		actors = append(actors, name)
		if name == "accounting" {
			for w := 2; w <= o.Workers; w++ {
				actors = append(actors, fmt.Sprintf("%s-%d", name, w))
			}
		}
	}
	d := &Deployment{o: o, pool: pool, faults: newFaults(o.Server, actors, o.Clock),
		backend: httpapi.NewDBBackend(pool, httpapi.DBConfig{Clock: o.Clock}),
		link:    newLink(o.Broker, o.Open, o.Away, o.Logger, o.Clock)}
	d.wg.Go(func() { d.link.run(ctx) })
	d.wg.Go(func() { d.summarise(ctx, &d.retries) })
	d.wg.Go(func() { d.link.watchLeader(ctx, leaderEvery) })
	started := o.Clock.Now()
	d.wg.Go(func() { d.watchStalls(ctx, o.stallEvery, o.stallAfter, started) })
	if o.HTTP != nil {
		m := telemetry.NewDeploymentMetrics(d.metrics())
		mux := http.NewServeMux()
		d.faults.handler(mux)
		mux.Handle("GET /metrics", m.Handler())
		mux.HandleFunc("GET /healthz", d.healthz)
		mux.HandleFunc("GET /readyz", d.readyz)
		mux.Handle("/", httpapi.NewHandler(d.backend))
		o.HTTP.Serve(m.Instrument(mux))
	}

	f := d.faults
	for i := range o.Relays {
		cfg := o.Relay
		cfg.Name = fmt.Sprintf("relay-%d", i+1)
		cfg.Connect, cfg.Counters = connect, o.Counters
		cfg.Clock, cfg.Hook = o.Clock, d.watch(cfg.Name, f.hook(cfg.Name)) // only a fault stops it
		cfg.PublishBatches = true
		d.wg.Go(func() {
			f.supervise(ctx, cfg.Name, o.OnError, func() error { return d.relay(ctx, cfg) })
		})
	}
	for _, name := range Consumers {
		workers := 1
		if name == "accounting" {
			workers = o.Workers
		}
		for w := range workers {
			cfg := engine.ConsumerConfig{Name: name, Actor: name, Strategy: o.Strategy, Connect: connect,
				Counters: o.Counters, Clock: o.Clock}
			if w > 0 {
				cfg.Actor = fmt.Sprintf("%s-%d", name, w+1)
			}
			cfg.Hook = d.watchConsumer(name, f.hook(cfg.Actor))
			d.wg.Go(func() {
				// A consumer needs its subscription, made when the broker
				// is opened; after that it waits out an outage itself.
				if cfg.Subscriber = d.link.awaitOpened(ctx); cfg.Subscriber == nil {
					return
				}
				f.supervise(ctx, cfg.Actor, o.OnError, func() error {
					c := engine.NewConsumer(cfg)
					defer c.Close(context.WithoutCancel(ctx))
					return c.Run(ctx)
				})
			})
		}
	}
	return d, nil
}

// relay runs a relay while the broker is up, until ctx ends or the relay
// ends otherwise (a crash): a publish that finds the broker down pauses it
// (publisher), its rows handed back, and a new relay starts once the
// broker is back, at once, on every row still pending.
func (d *Deployment) relay(ctx context.Context, cfg engine.RelayConfig) error {
	for {
		b := d.link.awaitUp(ctx)
		if b == nil {
			return ctx.Err()
		}
		rctx, pause := context.WithCancel(ctx)
		cfg.Publisher = publisher{b: b, l: d.link, pause: pause}
		r := engine.NewRelay(cfg)
		err := r.Run(rctx)
		_ = r.Close(context.WithoutCancel(ctx))
		paused := rctx.Err() != nil
		pause()
		if ctx.Err() != nil || !paused {
			return err
		}
	}
}

// supervise runs an actor until ctx ends, starting it again (a new one: a
// new relay has a new worker id) a second after it ends with an error, as
// a process supervisor would. The actor's state says so meanwhile.
func (f *faults) supervise(ctx context.Context, name string, onError func(error), run func() error) {
	for {
		err := run()
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			err = errors.New("ended")
		}
		onError(fmt.Errorf("%s: %w; starting it again in %s", name, err, restartAfter))
		f.ended(name, restartAfter)
		select {
		case <-ctx.Done():
			return
		case <-after(f.clock, restartAfter):
		}
		f.restarted(name)
	}
}

// restartAfter is how long a supervisor waits before it starts an ended
// actor again.
const restartAfter = time.Second
