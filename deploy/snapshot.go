package deploy

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	"github.com/outboxlab/outboxlab/engine/jetstream"
	"github.com/outboxlab/outboxlab/telemetry"
)

// sqlSnapshot counts the outbox at the deployment's now.
//
//go:embed sql/snapshot.sql
var sqlSnapshot string

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
	// OldestPendingAge is how long the oldest pending row has waited (0
	// when none waits): the one number that says the relays are behind.
	OldestPendingAge time.Duration
	// Consumers are every consumer's figures, in Consumers' order.
	Consumers []ConsumerFigures
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

// Snapshot reads the figures from the database, and the broker's from
// JetStream. A database that does not answer is an error; a broker that
// does not is said in BrokerErr.
func (d *Deployment) Snapshot(ctx context.Context) (Snapshot, error) {
	s := Snapshot{At: d.o.Clock.Now(), BrokerRunning: d.BrokerRunning()}
	var age float64
	if err := d.pool.QueryRow(ctx, sqlSnapshot, s.At).Scan(&s.Payments, &s.Pending, &s.Published, &s.Dead, &s.Retried, &age); err != nil {
		return s, fmt.Errorf("snapshot: %w", err)
	}
	s.OldestPendingAge = time.Duration(age * float64(time.Second))
	read, err := telemetry.ReadConsumerFigures(ctx, d.pool)
	if err != nil {
		return s, fmt.Errorf("snapshot: %w", err)
	}
	found := map[string]ConsumerFigures{}
	for name, c := range read {
		found[name] = ConsumerFigures{Name: name, Inbox: c.Inbox, Effects: c.Effects}
	}
	dups := d.o.Counters.DuplicatesIgnoredBy()
	for _, name := range Consumers {
		c := found[name]
		c.Name, c.DuplicatesIgnored = name, dups[name]
		s.Consumers = append(s.Consumers, c)
	}
	switch {
	case d.js == nil:
	case !s.BrokerRunning:
		s.BrokerErr = fmt.Errorf("the embedded JetStream server is stopped")
	default:
		info, err := d.js.Info(ctx)
		if err != nil {
			s.BrokerErr = err
		} else {
			s.Broker = &info
		}
	}
	return s, nil
}

// figures is the Snapshot as /metrics serves it.
func (d *Deployment) figures(ctx context.Context) (telemetry.DeploymentFigures, error) {
	s, err := d.Snapshot(ctx)
	if err != nil {
		return telemetry.DeploymentFigures{}, err
	}
	f := telemetry.DeploymentFigures{Pending: s.Pending, Published: s.Published, Dead: s.Dead, Payments: s.Payments,
		OldestPendingAge: s.OldestPendingAge, BrokerUp: s.Broker != nil}
	for _, c := range s.Consumers {
		f.Consumers = append(f.Consumers, telemetry.ConsumerFigures{Name: c.Name, Inbox: c.Inbox, Effects: c.Effects,
			DuplicatesIgnored: c.DuplicatesIgnored})
	}
	if s.Broker != nil {
		f.StreamMessages = int64(s.Broker.Messages)
	}
	return f, nil
}
