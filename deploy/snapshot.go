package deploy

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/jetstream"
	"github.com/outboxlab/outboxlab/telemetry"
)

// sqlSnapshot counts the outbox at the deployment's now.
//
//go:embed sql/snapshot.sql
var sqlSnapshot string

// sqlUnapplied counts, per consumer, what was published and not applied.
//
//go:embed sql/unapplied.sql
var sqlUnapplied string

// sqlReadTimeout bounds the statements of a snapshot's transaction.
//
//go:embed sql/read_timeout.sql
var sqlReadTimeout string

// ActorWaiting is a running actor that cannot do its work: the broker is
// down or does not answer, so a relay cannot publish and a consumer cannot
// receive. Only a Snapshot says it, from the broker's state: the actor's
// supervisor knows only that it runs.
const ActorWaiting ActorState = "waiting on the broker"

// Snapshot is a deployment's figures at one moment: the outbox and each
// consumer's inbox and effects as the database holds them, and what the
// broker holds as JetStream says.
type Snapshot struct {
	At        time.Time // the deployment's now, which ages are measured at
	Payments  int64
	Pending   int64 // outbox rows neither published nor dead-lettered
	Published int64
	Dead      int64
	Retried   int64 // outbox rows published (or not yet) after more than one attempt
	// AttemptsPerMessage is the mean attempts of the rows marked published.
	AttemptsPerMessage float64
	// OldestPendingAge is how long the oldest pending row has waited (0
	// when none waits): the one number that says the relays are behind.
	OldestPendingAge time.Duration
	// Consumers are every consumer's figures, in Consumers' order.
	Consumers []ConsumerFigures
	// Actors are every actor's state (Deployment.Actors), a running one
	// ActorWaiting while the broker is down.
	Actors []Actor
	// BrokerRunning is false while the embedded server is stopped.
	BrokerRunning bool
	// Broker is what JetStream holds; nil when it could not say (BrokerErr).
	Broker    *jetstream.Info
	BrokerErr error
}

// ConsumerFigures are one consumer's.
type ConsumerFigures struct {
	Name    string
	Inbox   int64 // inbox rows: messages it processed
	Effects int64 // ledger entries or notifications it wrote
	// DuplicatesIgnored are deliveries its inbox recognised (the engine's
	// counters: only a delivery knows it came again).
	DuplicatesIgnored int64
	// Unapplied are the messages published (marked in the outbox) it has
	// not applied yet, the oldest published OldestUnappliedAge ago.
	Unapplied          int64
	OldestUnappliedAge time.Duration
}

// Consumer is c's figures (zero if it has none).
func (s Snapshot) Consumer(name string) ConsumerFigures {
	for _, c := range s.Consumers {
		if c.Name == name {
			return c
		}
	}
	return ConsumerFigures{Name: name}
}

// BrokerDown reports whether the broker could not say what it holds
// (stopped, unreachable): nothing is published or received meanwhile.
func (s Snapshot) BrokerDown() bool { return s.BrokerErr != nil }

// StreamSettings are the promises of the pipeline's stream, for the screen.
type StreamSettings struct {
	Name string
	// Dedup is the dedup window: a publish of an id the stream took within
	// it is acked and dropped.
	Dedup time.Duration
	// Retention is when a message leaves the stream: "interest", at the
	// last ack of every consumer (JetStream removes it), or "acked by all",
	// a moment after it (the broker purges it: jetstream.Config.PurgeAcked,
	// what serve --broker and live run).
	Retention string
	// AckWait is how long a delivery may go unacknowledged before
	// JetStream hands it out again.
	AckWait time.Duration
	// Replicas is how many servers hold the stream; 0 when not known.
	Replicas int
}

// RetentionPurged is StreamSettings.Retention when the broker purges what
// every consumer acked.
const RetentionPurged = "acked by all"

// Stream is the stream's settings as the deployment opened it (no round
// trip: a screen may call it every frame; jetstream.Broker.StreamInfo asks
// the server afresh); ok false for a broker that is not JetStream.
func (d *Deployment) Stream() (StreamSettings, bool) {
	b, ok := d.StreamSettings()
	if !ok {
		return StreamSettings{}, false
	}
	js := b
	retention := js.Retention
	if js.PurgeAcked {
		retention = RetentionPurged
	}
	return StreamSettings{Name: js.Name, Dedup: js.Duplicates, Retention: retention, AckWait: js.AckWait, Replicas: js.Replicas}, true
}

// Snapshot reads the figures from the database, and the broker's from
// JetStream, at once: a broker that takes its timeout to say it is down
// does not hold up the database's figures. A database that does not
// answer is an error (the actors and the broker's state are filled even
// then); a broker that does not is said in BrokerErr, and every running
// actor is then ActorWaiting.
func (d *Deployment) Snapshot(ctx context.Context) (Snapshot, error) {
	s := Snapshot{At: d.o.Clock.Now(), BrokerRunning: d.BrokerRunning(), Actors: d.Actors()}
	var wg sync.WaitGroup
	wg.Go(func() { s.Broker, s.BrokerErr = d.readBroker(ctx, s.BrokerRunning) })
	db, err := d.readDatabase(ctx, s.At)
	wg.Wait()
	if s.BrokerDown() {
		for i, a := range s.Actors {
			if a.State == ActorRunning {
				s.Actors[i].State = ActorWaiting
			}
		}
	}
	if err != nil {
		return s, err
	}
	s.Payments, s.Pending, s.Published, s.Dead, s.Retried = db.Payments, db.Pending, db.Published, db.Dead, db.Retried
	s.AttemptsPerMessage, s.OldestPendingAge, s.Consumers = db.AttemptsPerMessage, db.OldestPendingAge, db.Consumers
	return s, nil
}

// errBrokerStopped is BrokerErr while the embedded server is stopped.
var errBrokerStopped = errors.New("the embedded JetStream server is stopped")

// readBroker asks JetStream what it holds (nil, nil for a broker that is
// not JetStream).
func (d *Deployment) readBroker(ctx context.Context, running bool) (*jetstream.Info, error) {
	b, js := d.link.broker()
	switch {
	case b == nil:
		return nil, errNotOpened
	case js == nil:
		return nil, nil
	case !running:
		return nil, errBrokerStopped
	case !js.Connected():
		return nil, fmt.Errorf("stream info %s: %w (%v)", js.Stream(), engine.ErrBrokerDown, errDisconnected)
	}
	info, err := js.Info(ctx)
	if err != nil {
		return nil, err
	}
	return &info, nil
}

// readDatabase reads the database's figures in one read-only transaction
// (one moment for all of them) whose statements PostgreSQL ends after
// telemetry.StatementTimeout: a table locked by another session makes the
// read fail, not wait for as long as the lock.
func (d *Deployment) readDatabase(ctx context.Context, at time.Time) (Snapshot, error) {
	var s Snapshot
	tx, err := d.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return s, fmt.Errorf("snapshot: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := tx.Exec(ctx, sqlReadTimeout, fmt.Sprint(telemetry.StatementTimeout.Milliseconds())); err != nil {
		return s, fmt.Errorf("snapshot: read_timeout: %w", err)
	}
	var age float64
	if err := tx.QueryRow(ctx, sqlSnapshot, at).Scan(&s.Payments, &s.Pending, &s.Published, &s.Dead, &s.Retried,
		&s.AttemptsPerMessage, &age); err != nil {
		return s, fmt.Errorf("snapshot: %w", err)
	}
	s.OldestPendingAge = time.Duration(age * float64(time.Second))
	read, err := telemetry.ReadConsumerFigures(ctx, tx)
	if err != nil {
		return s, fmt.Errorf("snapshot: %w", err)
	}
	found := map[string]ConsumerFigures{}
	for name, c := range read {
		found[name] = ConsumerFigures{Name: name, Inbox: c.Inbox, Effects: c.Effects}
	}
	unapplied, err := readUnappliedOn(ctx, tx, at)
	if err != nil {
		return s, fmt.Errorf("snapshot: %w", err)
	}
	for name, u := range unapplied {
		c := found[name]
		c.Unapplied, c.OldestUnappliedAge = u.Unapplied, u.OldestUnappliedAge
		found[name] = c
	}
	dups := d.o.Counters.DuplicatesIgnoredBy()
	for _, name := range Consumers {
		c := found[name]
		c.Name, c.DuplicatesIgnored = name, dups[name]
		s.Consumers = append(s.Consumers, c)
	}
	return s, nil
}

// metrics is the deployment's /metrics collector: the database's figures
// and the broker's read apart, the actors' counters and the broker's
// deliveries as they are at each scrape.
func (d *Deployment) metrics() *telemetry.DeploymentCollector {
	src := telemetry.DeploymentSource{
		Counters: d.o.Counters,
		OnError:  d.o.OnError,
		Database: func(ctx context.Context) (telemetry.DeploymentFigures, error) {
			now := d.o.Clock.Now()
			s, err := d.readDatabase(ctx, now)
			if err != nil {
				return telemetry.DeploymentFigures{}, err
			}
			f := telemetry.DeploymentFigures{Pending: s.Pending, Published: s.Published, Dead: s.Dead, Payments: s.Payments,
				OldestPendingAge: s.OldestPendingAge, AttemptsPerMessage: s.AttemptsPerMessage}
			for _, c := range s.Consumers {
				f.Consumers = append(f.Consumers, telemetry.ConsumerFigures{Name: c.Name, Inbox: c.Inbox, Effects: c.Effects,
					DuplicatesIgnored: c.DuplicatesIgnored, Unapplied: c.Unapplied, OldestUnappliedAge: c.OldestUnappliedAge})
			}
			return f, nil
		},
	}
	{
		src.Broker = func(ctx context.Context) (telemetry.BrokerFigures, error) {
			info, err := d.readBroker(ctx, d.BrokerRunning())
			if err != nil {
				return telemetry.BrokerFigures{}, fmt.Errorf("broker: %w", err)
			}
			if info == nil {
				return telemetry.BrokerFigures{}, nil
			}
			return telemetry.BrokerFigures{StreamMessages: int64(info.Messages)}, nil
		}
		src.Deliveries = func() int64 {
			if _, js := d.link.broker(); js != nil {
				return int64(js.Stats().Delivered)
			}
			return 0
		}
	}
	return telemetry.NewDeploymentCollector(src)
}
