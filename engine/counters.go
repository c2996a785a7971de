package engine

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Counters are the engine-side figures actors add to as they work; share one
// between the actors of a pipeline. Safe for concurrent use. An actor given
// none counts into a private one.
type Counters struct {
	Claimed           atomic.Int64 // rows leased by relays
	Published         atomic.Int64 // publishes the broker accepted
	PublishFailures   atomic.Int64
	Marked            atomic.Int64 // rows marked published
	RetriesScheduled  atomic.Int64
	DeadLettered      atomic.Int64
	LeasesRecovered   atomic.Int64 // claims of rows whose earlier lease had expired
	LostLeases        atomic.Int64 // marks or retries refused: another worker held the lease
	Processed         atomic.Int64 // deliveries whose effect committed
	DuplicatesIgnored atomic.Int64 // deliveries the inbox recognised
	VersionGaps       atomic.Int64 // deliveries refused for an unexpected aggregate_version

	OccurredToPublished  Latency
	PublishedToProcessed Latency
}

func (c *Counters) add(v *atomic.Int64, n int) {
	if n != 0 {
		v.Add(int64(n))
	}
}

// Latency summarises durations: count, mean, max and percentiles over the
// most recent samples. Safe for concurrent use.
type Latency struct {
	mu     sync.Mutex
	count  int64
	sum    time.Duration
	max    time.Duration
	recent []time.Duration
	next   int
}

// latencyWindow is how many recent samples percentiles are computed over.
const latencyWindow = 4096

// Observe records one duration.
func (l *Latency) Observe(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count++
	l.sum += d
	l.max = max(l.max, d)
	if len(l.recent) < latencyWindow {
		l.recent = append(l.recent, d)
	} else {
		l.recent[l.next] = d
		l.next = (l.next + 1) % latencyWindow
	}
}

// LatencySummary is a Latency read at one moment.
type LatencySummary struct {
	Count    int64
	Mean     time.Duration
	P50, P99 time.Duration // over the most recent samples
	Max      time.Duration
}

// Summary reads the latency.
func (l *Latency) Summary() LatencySummary {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := LatencySummary{Count: l.count, Max: l.max}
	if l.count == 0 {
		return s
	}
	s.Mean = l.sum / time.Duration(l.count)
	sorted := slices.Clone(l.recent)
	slices.Sort(sorted)
	s.P50 = sorted[(len(sorted)-1)*50/100]
	s.P99 = sorted[(len(sorted)-1)*99/100]
	return s
}

func (c *Counters) observe(l *Latency, d time.Duration) { l.Observe(d) }
