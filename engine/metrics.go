package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// MetricsWindow is the window publishes per second is measured over.
const MetricsWindow = time.Minute

// Metrics are the nine figures of S24, read at one moment.
type Metrics struct {
	At time.Time
	// OutboxPendingTotal counts rows still to publish (neither published nor dead-lettered).
	OutboxPendingTotal int64
	// OldestPendingAge is Now minus the oldest pending row's occurred_at (0 when none).
	OldestPendingAge time.Duration
	// PublishesPerSecond is rows marked published in the last MetricsWindow, per second.
	PublishesPerSecond float64
	// AttemptsPerMessage is the mean attempts of published rows (1 = first try).
	AttemptsPerMessage float64
	// DeadLetters counts dead-lettered rows.
	DeadLetters int64
	// ExpiredLeasesRecovered counts claims that took over an expired lease.
	ExpiredLeasesRecovered int64
	// InboxDuplicatesIgnored counts deliveries the inbox recognised.
	InboxDuplicatesIgnored int64
	// OccurredToPublished and PublishedToProcessed are the two latencies of the chain.
	OccurredToPublished  LatencySummary
	PublishedToProcessed LatencySummary
	// Counted are the actors' counters themselves (zero without counters):
	// they only grow while the actors run, where the database's counts above
	// fall with a requeue or retention.
	Counted CounterValues
}

// Snapshot reads the database figures on conn at now and the actors'
// figures from counters (which may be nil).
func Snapshot(ctx context.Context, conn *pgx.Conn, now time.Time, counters *Counters) (Metrics, error) {
	m := Metrics{At: now}
	var oldest *time.Time
	var published int64
	err := queryRowOn(ctx, conn, stmtOutboxMetrics, now.Add(-MetricsWindow), now).
		Scan(&m.OutboxPendingTotal, &oldest, &m.DeadLetters, &published, &m.AttemptsPerMessage)
	if err != nil {
		return m, fmt.Errorf("metrics snapshot: %w", err)
	}
	if oldest != nil {
		m.OldestPendingAge = max(now.Sub(*oldest), 0)
	}
	m.PublishesPerSecond = float64(published) / MetricsWindow.Seconds()
	if counters != nil {
		m.ExpiredLeasesRecovered = counters.LeasesRecovered.Load()
		m.InboxDuplicatesIgnored = counters.DuplicatesIgnored.Load()
		m.OccurredToPublished = counters.OccurredToPublished.Summary()
		m.PublishedToProcessed = counters.PublishedToProcessed.Summary()
		m.Counted = counters.Values()
	}
	return m, nil
}
