package deploy

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/fault"
	"github.com/outboxlab/outboxlab/engine/jetstream"
	"github.com/outboxlab/outboxlab/httpapi"
)

// Deployment is a running deployment's handle (Launch's): what a screen or
// a test does to it without HTTP — the same faults and the same API
// backend the HTTP API uses — and its figures, read from the database.
// Safe for concurrent use.
type Deployment struct {
	o       Options
	pool    *pgxpool.Pool
	backend *httpapi.DBBackend
	faults  *faults
	link    *link
	retries atomic.Int64 // scheduled since the last summary (watch.go)
	// lastRetry is the last retry's detail (a string): its cause.
	lastRetry atomic.Value
	// progress is when each consumer last applied something (stall.go).
	progress progress
	wg       sync.WaitGroup
}

// ActorState is what an actor is doing, as its supervisor and its faults
// know it.
type ActorState string

// The states of an actor.
const (
	// ActorRunning: it runs (an armed fault waits for its next checkpoint).
	ActorRunning ActorState = "running"
	// ActorStalled: frozen at a checkpoint until Actor.Until.
	ActorStalled ActorState = "stalled"
	// ActorCrashed: it ended; its supervisor starts a new one at Actor.Until.
	ActorCrashed ActorState = "crashed"
)

// Actor is one actor's state.
type Actor struct {
	Name  string
	State ActorState
	// Until is when a stalled actor resumes, or a crashed one starts again.
	Until time.Time
	// Armed is the fault waiting for its next checkpoint (fault.Crash,
	// fault.Stall), "" for none.
	Armed fault.Fault
	// Restarts counts the times its supervisor started it again.
	Restarts int
}

// Errors of the handle's faults.
var (
	ErrUnknownActor = errors.New("unknown actor")
	ErrBadDuration  = errors.New("want a duration above 0 and up to 1h")
	// ErrBrokerAtURL: the broker runs elsewhere, not ours to stop or start.
	ErrBrokerAtURL = errors.New("the broker runs at a URL, not in this process: stop it there")
)

// Actors are every actor's state, relays first, in a fixed order (the
// order the screen numbers them in).
func (d *Deployment) Actors() []Actor { return d.faults.snapshot() }

// Crash arms a crash of actor at its next checkpoint; its supervisor starts
// a new one a second later.
func (d *Deployment) Crash(actor string) error { return d.faults.armCrash(actor) }

// Stall arms a stall of actor for dur at its next checkpoint: past the
// broker's AckWait a consumer's delivery comes again.
func (d *Deployment) Stall(actor string, dur time.Duration) error {
	return d.faults.armStall(actor, dur)
}

// AckWait is how long JetStream waits for an ack before it delivers again
// (0 for a broker that is not JetStream).
func (d *Deployment) AckWait() time.Duration {
	_, js := d.link.broker()
	if js == nil {
		return 0
	}
	return js.Config().AckWait
}

// Broker says whether the broker is up, since when, and why not.
func (d *Deployment) Broker() BrokerState { return d.link.state() }

// StreamSettings are the stream's settings as the deployment opened it;
// ok false before the broker first answered (or for a broker that is not
// JetStream).
func (d *Deployment) StreamSettings() (s jetstream.StreamSettings, ok bool) {
	_, js := d.link.broker()
	if js == nil {
		return s, false
	}
	return js.Settings(), true
}

// DatabaseURL is the database that holds the deployment's payments, its
// outbox and its inboxes: what psql is pointed at.
func (d *Deployment) DatabaseURL() string { return d.o.DatabaseURL }

// Embedded reports whether the broker's server runs in this process (and
// so StopBroker and StartBroker work).
func (d *Deployment) Embedded() bool { return d.o.Server != nil }

// BrokerRunning reports whether the embedded server runs; a broker at a
// URL is taken to run.
func (d *Deployment) BrokerRunning() bool { return d.o.Server == nil || d.o.Server.Running() }

// StopBroker stops the embedded JetStream server (its store is kept):
// the relays hand their rows back and wait for it, the consumers wait.
func (d *Deployment) StopBroker() error {
	if d.o.Server == nil {
		return ErrBrokerAtURL
	}
	d.o.Server.Stop()
	return nil
}

// StartBroker starts the embedded server again on its store.
func (d *Deployment) StartBroker() error {
	if d.o.Server == nil {
		return ErrBrokerAtURL
	}
	if err := d.o.Server.Start(); err != nil {
		return fmt.Errorf("start the broker: %w", err)
	}
	return nil
}

// PostPayment writes a payment of amount cents as POST /payments does
// (the same backend: an engine.Writer in one transaction with its outbox row).
func (d *Deployment) PostPayment(ctx context.Context, amount int64) (engine.PaymentResponse, error) {
	resp, err := d.backend.CreatePayment(ctx, engine.PaymentRequest{ClientID: "live", AmountCents: amount, Currency: "EUR"})
	if err != nil {
		return resp, fmt.Errorf("post a payment: %w", err)
	}
	return resp, nil
}

// Counters are the engine's counters, shared by every actor.
func (d *Deployment) Counters() *engine.Counters { return d.o.Counters }

// Wait waits for every actor to end (they end with Launch's context) and
// releases what Launch opened: the API, the writers, the pool.
func (d *Deployment) Wait() {
	d.wg.Wait()
	if d.o.HTTP != nil {
		d.o.HTTP.Close()
	}
	if d.o.Broker == nil {
		if _, js := d.link.broker(); js != nil {
			js.Close() // opened here (Options.Open)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = d.backend.Close(ctx)
	d.pool.Close()
}
