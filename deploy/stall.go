package deploy

import (
	"context"
	_ "embed"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/telemetry"
)

// stallAfter is how long a consumer may go without applying anything while
// a message published for it has waited as long, before the log says it
// is stalled: past AckWait's default (30 s) a delivery would have come
// again, so by then something holds the consumer, not the pace of its
// work. An idle consumer with nothing owed is never stalled.
const stallAfter = 30 * time.Second

// stallCheckEvery is how often the consumers' progress is read from the
// database (one query: what each consumer has not applied): a stall is
// said at most this long after stallAfter.
const stallCheckEvery = 5 * time.Second

// sqlStallRead bounds the stall watcher's read and names it.
//
//go:embed sql/stall_read.sql
var sqlStallRead string

// stallLockWait is how long the stall watcher's read waits on a lock
// before it gives up until its next round.
const stallLockWait = 100 * time.Millisecond

// progress is when each consumer last committed a delivery's effect, as
// its hook heard it (zero: not since the start).
type progress struct {
	mu   sync.Mutex
	last map[string]time.Time
}

func (p *progress) applied(consumer string, at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.last == nil {
		p.last = map[string]time.Time{}
	}
	p.last[consumer] = at
}

func (p *progress) lastApplied(consumer string) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last[consumer]
}

// watchConsumer is consumer's hook h that also notes each commit (a
// delivery's effect and inbox row durable) as the consumer's progress.
func (d *Deployment) watchConsumer(consumer string, h engine.Hook) engine.Hook {
	return func(ctx context.Context, ev engine.Event) error {
		if ev.Checkpoint == engine.ConsumerCommitted {
			d.progress.applied(consumer, d.o.Clock.Now())
		}
		return h(ctx, ev)
	}
}

// stall is a consumer said to be stalled: when it last applied something.
type stall struct{ since time.Time }

// watchStalls says, a line each time a consumer's state changes, when one
// stops applying while messages published for it wait (stalled: a stall
// fault, a hung effect, a broker that does not deliver) and when it
// applies again (resumed), until ctx ends. Nothing is said per message.
func (d *Deployment) watchStalls(ctx context.Context, every, after time.Duration, started time.Time) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	stalled := map[string]stall{}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		now := d.o.Clock.Now()
		owed, err := d.readUnapplied(ctx, now)
		if err != nil {
			continue // a database that does not answer is said by the API and /metrics
		}
		for _, name := range Consumers {
			c := owed[name]
			last := d.progress.lastApplied(name)
			idleSince := last
			if last.IsZero() {
				idleSince = started
			}
			s, was := stalled[name]
			switch {
			case !was && c.Unapplied > 0 && c.OldestUnappliedAge >= after && now.Sub(idleSince) >= after:
				stalled[name] = stall{since: idleSince}
				d.o.Logger.Warn("consumer stalled: messages published for it wait and it has applied none for a while",
					"consumer", name, "unapplied", c.Unapplied, "oldest_unapplied_age", c.OldestUnappliedAge.Round(time.Second).String(),
					"idle_for", now.Sub(idleSince).Round(time.Second).String(), "broker_up", d.link.state().Up)
			case was && (last.After(s.since) || c.Unapplied == 0):
				delete(stalled, name)
				d.o.Logger.Info("consumer resumed: applying again", "consumer", name,
					"stalled_for", now.Sub(s.since).Round(time.Second).String(), "unapplied", c.Unapplied)
			}
		}
	}
}

// readUnapplied reads, per consumer, what was published and not applied
// (sql/stall_read.sql: it does not wait behind a lock).
func (d *Deployment) readUnapplied(ctx context.Context, at time.Time) (map[string]ConsumerFigures, error) {
	tx, err := d.pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("unapplied: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := tx.Exec(ctx, sqlStallRead, fmt.Sprint(telemetry.StatementTimeout.Milliseconds()), fmt.Sprint(stallLockWait.Milliseconds())); err != nil {
		return nil, fmt.Errorf("unapplied: stall_read: %w", err)
	}
	return readUnappliedOn(ctx, tx, at)
}

// readUnappliedOn reads on tx, per consumer, how many messages were
// published for it and not applied, and the oldest one's age at at: the
// stall watcher's figures and the snapshot's.
func readUnappliedOn(ctx context.Context, tx pgx.Tx, at time.Time) (map[string]ConsumerFigures, error) {
	rows, err := tx.Query(ctx, sqlUnapplied, at, Consumers)
	if err != nil {
		return nil, fmt.Errorf("unapplied: %w", err)
	}
	out := map[string]ConsumerFigures{}
	var c ConsumerFigures
	var oldest float64
	if _, err := pgx.ForEachRow(rows, []any{&c.Name, &c.Unapplied, &oldest}, func() error {
		c.OldestUnappliedAge = time.Duration(oldest * float64(time.Second))
		out[c.Name] = c
		return nil
	}); err != nil {
		return nil, fmt.Errorf("unapplied: %w", err)
	}
	return out, nil
}
