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
	HeldBack          atomic.Int64 // ordering claims that leased nothing while ready rows waited (S20)

	OccurredToPublished  Latency
	PublishedToProcessed Latency

	// duplicatesBy splits DuplicatesIgnored by consumer (name → *atomic.Int64).
	duplicatesBy sync.Map
}

// duplicates counts deliveries consumer's inbox recognised, in all and
// for that consumer.
func (c *Counters) duplicates(consumer string, n int) {
	if n == 0 {
		return
	}
	c.DuplicatesIgnored.Add(int64(n))
	v, _ := c.duplicatesBy.LoadOrStore(consumer, new(atomic.Int64))
	v.(*atomic.Int64).Add(int64(n))
}

// DuplicatesIgnoredBy is DuplicatesIgnored by consumer: the consumers that
// recognised at least one.
func (c *Counters) DuplicatesIgnoredBy() map[string]int64 {
	out := map[string]int64{}
	c.duplicatesBy.Range(func(k, v any) bool {
		out[k.(string)] = v.(*atomic.Int64).Load()
		return true
	})
	return out
}

// CounterValues are the Counters read at one moment.
type CounterValues struct {
	Claimed           int64 // rows leased by relays: one publish attempt each
	Published         int64 // publishes the broker accepted
	PublishFailures   int64
	Marked            int64 // rows marked published
	RetriesScheduled  int64
	DeadLettered      int64
	LeasesRecovered   int64 // claims of rows whose earlier lease had expired
	LostLeases        int64 // marks or retries refused: another worker held the lease
	Processed         int64 // deliveries whose effect committed
	DuplicatesIgnored int64 // deliveries the inbox recognised
	VersionGaps       int64 // deliveries refused for an unexpected aggregate_version
	// DuplicatesIgnoredBy is DuplicatesIgnored by consumer.
	DuplicatesIgnoredBy map[string]int64
}

// Values reads every counter. Each only grows while the actors that share
// them run: unlike the database's counts, which a requeue or retention
// lowers, they are what a monitoring system can treat as counters.
func (c *Counters) Values() CounterValues {
	return CounterValues{
		Claimed: c.Claimed.Load(), Published: c.Published.Load(), PublishFailures: c.PublishFailures.Load(),
		Marked: c.Marked.Load(), RetriesScheduled: c.RetriesScheduled.Load(), DeadLettered: c.DeadLettered.Load(),
		LeasesRecovered: c.LeasesRecovered.Load(), LostLeases: c.LostLeases.Load(), Processed: c.Processed.Load(),
		DuplicatesIgnored: c.DuplicatesIgnored.Load(), VersionGaps: c.VersionGaps.Load(),
		DuplicatesIgnoredBy: c.DuplicatesIgnoredBy(),
	}
}

func (c *Counters) add(v *atomic.Int64, n int) {
	if n != 0 {
		v.Add(int64(n))
	}
}

// Latency summarises durations: count, mean, max and percentiles over the
// most recent samples, and a histogram of every sample over LatencyBuckets.
// Safe for concurrent use.
type Latency struct {
	mu      sync.Mutex
	count   int64
	sum     time.Duration
	max     time.Duration
	recent  []time.Duration
	next    int
	buckets [len(LatencyBuckets)]int64 // samples in each bucket alone (not cumulative)
}

// LatencyBuckets are the histogram's upper bounds, inclusive: half a
// millisecond doubling 23 times, to 70 minutes. What is measured spans
// that: a deployment's publish or delivery takes a millisecond or a few
// (LISTEN/NOTIFY, a JetStream write synced), an outage or a redelivery
// after AckWait tens of seconds to minutes, the simulator's backoff up to
// 300 s and its budget before a dead letter about 1200 s. Each bound is
// twice the one before, so a quantile interpolated within a bucket is
// within a factor of two of the true one at any scale; the old bounds
// (1 ms, then 1 s, 2 s, 5 s …) put every deployment latency in (1 ms, 1 s]
// and read a p99 of 0.99 ms from a run of microseconds.
var LatencyBuckets = func() (b [latencyBucketCount]time.Duration) {
	for i := range b {
		b[i] = 500 * time.Microsecond << i
	}
	return b
}()

// latencyBucketCount is how many bounds LatencyBuckets has.
const latencyBucketCount = 24

// latencyWindow is how many recent samples percentiles are computed over.
const latencyWindow = 4096

// Observe records one duration.
func (l *Latency) Observe(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count++
	l.sum += d
	l.max = max(l.max, d)
	for i, le := range LatencyBuckets {
		if d <= le {
			l.buckets[i]++
			break
		}
	}
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
	Sum      time.Duration // of every sample
	// Buckets[i] counts the samples at most LatencyBuckets[i], cumulative as
	// Prometheus' le buckets are; a sample above the last bound is in Count only.
	Buckets [len(LatencyBuckets)]int64
}

// Summary reads the latency.
func (l *Latency) Summary() LatencySummary {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := LatencySummary{Count: l.count, Max: l.max, Sum: l.sum}
	var below int64
	for i, n := range l.buckets {
		below += n
		s.Buckets[i] = below
	}
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
