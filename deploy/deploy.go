// Package deploy runs the engine as a deployment would, for `outboxlab
// serve --http --broker nats` and `outboxlab live`: no simulator and no virtual clock, the
// system clock, relays woken by LISTEN/NOTIFY, consumers pulling from a real
// broker, each in its own goroutine for as long as the context lives, and
// the HTTP API's POST /payments an engine.Writer on the same database.
// The step-by-step simulator keeps the in-process broker: only it can be
// paused between two statements on a clock that waits.
package deploy

import (
	"context"
	"errors"
	"fmt"
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
	Broker      Broker
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
		backend: httpapi.NewDBBackend(pool, httpapi.DBConfig{Clock: o.Clock})}
	d.js, _ = o.Broker.(*jetstream.Broker)
	if o.HTTP != nil {
		mux := http.NewServeMux()
		d.faults.handler(mux)
		mux.Handle("GET /metrics", telemetry.DeploymentHandler(d.metrics()))
		mux.Handle("/", httpapi.NewHandler(d.backend))
		o.HTTP.Serve(mux)
	}

	f := d.faults
	for i := range o.Relays {
		cfg := o.Relay
		cfg.Name = fmt.Sprintf("relay-%d", i+1)
		cfg.Connect, cfg.Publisher, cfg.Counters = connect, o.Broker, o.Counters
		cfg.Clock, cfg.Hook = o.Clock, f.hook(cfg.Name) // only a fault stops it
		cfg.PublishBatches = true
		d.wg.Go(func() {
			f.supervise(ctx, cfg.Name, o.OnError, func() error {
				r := engine.NewRelay(cfg)
				defer r.Close(context.WithoutCancel(ctx))
				return r.Run(ctx)
			})
		})
	}
	for _, name := range Consumers {
		workers := 1
		if name == "accounting" {
			workers = o.Workers
		}
		for w := range workers {
			cfg := engine.ConsumerConfig{Name: name, Actor: name, Strategy: o.Strategy, Connect: connect,
				Subscriber: o.Broker, Counters: o.Counters, Clock: o.Clock}
			if w > 0 {
				cfg.Actor = fmt.Sprintf("%s-%d", name, w+1)
			}
			cfg.Hook = f.hook(cfg.Actor)
			d.wg.Go(func() {
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
