// Package telemetry serves the simulator's figures to Prometheus (GET
// /metrics): the nine of S24 under Prometheus' naming conventions, labelled
// by pipeline and, where the database can say it, by consumer. Nothing is
// kept beside the simulation: each scrape reads the engine's counters and
// the pipelines' databases as they are at that moment, so a rewind shows
// what PostgreSQL holds then, as the screen does.
//
// The simulator's clock is virtual (it moves only when the simulator
// advances it): ages and latencies are in virtual seconds, and
// outboxlab_virtual_time_seconds says where that clock is. rate() over a
// counter is per wall-clock second.
//
// A rewind, a reset or another scene starts the figures over: the counters
// fall to what the replayed run has counted. Prometheus takes a fall as a
// counter reset (rate() and increase() go on from the new value; a rewind
// makes increase() count the replayed run's figures as new), each counter
// and histogram carries the run's start as its created timestamp (in the
// protobuf and OpenMetrics formats), and outboxlab_run_resets_total and
// outboxlab_run_start_time_seconds say when it happened.
package telemetry

import (
	"context"
	_ "embed"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/prometheus/client_golang/prometheus"
)

// namespace prefixes every metric name.
const namespace = "outboxlab"

// consumers are the consumers every pipeline runs (S6): each has its
// per-consumer figures, zero until it has processed something.
var consumers = []string{"accounting", "notifications"}

// sqlConsumerFigures is the per-consumer read: inbox rows and effects.
//
//go:embed sql/consumer_figures.sql
var sqlConsumerFigures string

// Config says what a Collector reads.
type Config struct {
	// Sim returns the simulation to read now, nil while there is none
	// (booting, between scenes). It is called at every scrape, so the
	// simulator can replace its simulation (another scene) at any time.
	Sim func() *sim.Sim
	// DatabaseURL returns the URL of a pipeline's database ("outbox",
	// "naive"), for the figures only the database has per consumer; nil
	// leaves them out. Each scrape opens one short connection per pipeline
	// and closes it: nothing stays open to hold up a reset of the database.
	DatabaseURL func(pipeline string) string
	// Timeout bounds one scrape's reads; default 5s.
	Timeout time.Duration
	// OnError hears why a scrape could not read the simulation (it then
	// says outboxlab_up 0); nil ignores it.
	OnError func(error)
	// Now is the wall clock, for a run's start; default time.Now.
	Now func() time.Time
}

// Collector is a prometheus.Collector that reads the simulation when
// scraped. Safe for concurrent scrapes.
type Collector struct {
	cfg Config

	mu     sync.Mutex
	seen   *sim.Sim  // the simulation of the run being counted
	epoch  int       // its resets when last seen (sim.Sim.TimelineSince)
	start  time.Time // when this collector first saw the run: the counters' created time
	resets int64     // runs started over since the first one seen
}

// NewCollector returns a collector reading what cfg says.
func NewCollector(cfg Config) *Collector {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Collector{cfg: cfg}
}

var (
	pipelineLabel = []string{"pipeline"}
	consumerLabel = []string{"pipeline", "consumer"}

	descUp = prometheus.NewDesc(namespace+"_up",
		"1 if this scrape read the simulation and its databases; 0 if there is no simulation or a read failed (PostgreSQL down), and then no figure follows.", nil, nil)
	descVirtualTime = prometheus.NewDesc(namespace+"_virtual_time_seconds",
		"The simulator's virtual clock, in Unix seconds. Every age and latency here is in this time, which moves only when the simulator advances it.", nil, nil)
	descRunStart = prometheus.NewDesc(namespace+"_run_start_time_seconds",
		"Wall-clock Unix time at which this endpoint first saw the current run of the simulation; every counter counts from zero since then.", nil, nil)
	descRunResets = prometheus.NewDesc(namespace+"_run_resets_total",
		"Times the simulation started over (a rewind, a reset, another scene): its counters fell to what the new run has counted, which Prometheus takes as a counter reset.", nil, nil)

	descPendingMessages = prometheus.NewDesc(namespace+"_outbox_pending_messages",
		"Outbox rows still to publish, neither published nor dead-lettered: the seed's outbox_pending_total (a gauge, so without _total). From the database.", pipelineLabel, nil)
	descOldestPendingAge = prometheus.NewDesc(namespace+"_outbox_oldest_pending_age_seconds",
		"Virtual seconds since the oldest pending outbox row occurred (0 when none is pending): the figure that says the relay is behind. Virtual time: the simulator's clock, not the wall's. From the database.", pipelineLabel, nil)
	descPublishRate = prometheus.NewDesc(namespace+"_outbox_publishes_per_virtual_second",
		"Outbox rows marked published in the last virtual minute, per virtual second: the simulator's own figure. rate(outboxlab_publishes_total) is per wall-clock second instead. From the database.", pipelineLabel, nil)
	descAttemptsPerMessage = prometheus.NewDesc(namespace+"_outbox_attempts_per_published_message",
		"Mean attempts of the outbox rows marked published (1 = first try; a requeue starts a row's count over). From the database.", pipelineLabel, nil)
	descDeadLettered = prometheus.NewDesc(namespace+"_outbox_dead_lettered_messages",
		"Outbox rows dead-lettered now (a requeue takes them out). From the database.", pipelineLabel, nil)

	descPublishes = prometheus.NewDesc(namespace+"_publishes_total",
		"Messages the pipeline's broker accepted, from the relays or the naive dual write; a republish of one id counts again. rate() is publishes per wall-clock second.", pipelineLabel, nil)
	descDeliveries = prometheus.NewDesc(namespace+"_deliveries_total",
		"Deliveries the broker handed to consumers, redeliveries and duplicates included: at least once, never exactly once.", pipelineLabel, nil)
	descAttempts = prometheus.NewDesc(namespace+"_outbox_publish_attempts_total",
		"Publish attempts: relay claims of outbox rows, one attempt each. Attempts per message is rate(this) / rate(outboxlab_outbox_published_messages_total).", pipelineLabel, nil)
	descPublishedMessages = prometheus.NewDesc(namespace+"_outbox_published_messages_total",
		"Outbox rows the relays marked published.", pipelineLabel, nil)
	descDeadLetters = prometheus.NewDesc(namespace+"_outbox_dead_letters_total",
		"Outbox rows the relays dead-lettered after their last attempt (a requeued row that fails again counts again).", pipelineLabel, nil)
	descLeasesRecovered = prometheus.NewDesc(namespace+"_outbox_expired_leases_recovered_total",
		"Relay claims of rows whose earlier lease had expired: a relay died or stalled holding them.", pipelineLabel, nil)
	descDuplicatesIgnored = prometheus.NewDesc(namespace+"_inbox_duplicates_ignored_total",
		"Deliveries a consumer's inbox recognised as already processed: committed and ACKed, no second effect.", consumerLabel, nil)

	descOccurredToPublished = prometheus.NewDesc(namespace+"_occurred_to_published_seconds",
		"Virtual seconds from an event's occurred_at to the broker accepting its publish; a republish observes again. Virtual time: the simulator's clock.", pipelineLabel, nil)
	descPublishedToProcessed = prometheus.NewDesc(namespace+"_published_to_processed_seconds",
		"Virtual seconds from the broker accepting a message to a consumer committing its effect, every consumer of the pipeline together. Virtual time: the simulator's clock.", pipelineLabel, nil)

	descInboxMessages = prometheus.NewDesc(namespace+"_inbox_messages",
		"Rows in the consumer's inbox: the messages it processed, once each (retention deletes old ones). From the database.", consumerLabel, nil)
	descEffects = prometheus.NewDesc(namespace+"_consumer_effects",
		"Effect rows the consumer wrote (accounting: ledger_entries, notifications: notifications); with the inbox, one per message. From the database.", consumerLabel, nil)
)

// figure is one number of a pipeline: where it is read and what it is to
// Prometheus.
type figure struct {
	desc *prometheus.Desc
	kind prometheus.ValueType
	of   func(pipelineRead) float64
}

// pipelineRead is what one scrape read of one pipeline.
type pipelineRead struct {
	m engine.Metrics
	o sim.Oracle
}

var figures = []figure{
	{descPendingMessages, prometheus.GaugeValue, func(r pipelineRead) float64 { return float64(r.m.OutboxPendingTotal) }},
	{descOldestPendingAge, prometheus.GaugeValue, func(r pipelineRead) float64 { return r.m.OldestPendingAge.Seconds() }},
	{descPublishRate, prometheus.GaugeValue, func(r pipelineRead) float64 { return r.m.PublishesPerSecond }},
	{descAttemptsPerMessage, prometheus.GaugeValue, func(r pipelineRead) float64 { return r.m.AttemptsPerMessage }},
	{descDeadLettered, prometheus.GaugeValue, func(r pipelineRead) float64 { return float64(r.m.DeadLetters) }},
	{descPublishes, prometheus.CounterValue, func(r pipelineRead) float64 { return float64(r.o.Publishes) }},
	{descDeliveries, prometheus.CounterValue, func(r pipelineRead) float64 { return float64(r.o.Deliveries) }},
	{descAttempts, prometheus.CounterValue, func(r pipelineRead) float64 { return float64(r.m.Counted.Claimed) }},
	{descPublishedMessages, prometheus.CounterValue, func(r pipelineRead) float64 { return float64(r.m.Counted.Marked) }},
	{descDeadLetters, prometheus.CounterValue, func(r pipelineRead) float64 { return float64(r.m.Counted.DeadLettered) }},
	{descLeasesRecovered, prometheus.CounterValue, func(r pipelineRead) float64 { return float64(r.m.Counted.LeasesRecovered) }},
}

// Describe sends every metric's description.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descUp, descVirtualTime, descRunStart, descRunResets, descDuplicatesIgnored,
		descOccurredToPublished, descPublishedToProcessed, descInboxMessages, descEffects} {
		ch <- d
	}
	for _, f := range figures {
		ch <- f.desc
	}
}

// Collect reads the simulation and its databases and sends the figures.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	var s *sim.Sim
	if c.cfg.Sim != nil {
		s = c.cfg.Sim()
	}
	start, resets := c.run(s)
	ch <- prometheus.MustNewConstMetric(descRunResets, prometheus.CounterValue, float64(resets))
	if s == nil {
		ch <- prometheus.MustNewConstMetric(descUp, prometheus.GaugeValue, 0)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.Timeout)
	defer cancel()
	out, err := c.read(ctx, s, start)
	if err != nil {
		if c.cfg.OnError != nil {
			c.cfg.OnError(err)
		}
		ch <- prometheus.MustNewConstMetric(descUp, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(descUp, prometheus.GaugeValue, 1)
	ch <- prometheus.MustNewConstMetric(descRunStart, prometheus.GaugeValue, unixSeconds(start))
	for _, m := range out {
		ch <- m
	}
}

// read makes every figure of the simulation's pipelines, or fails whole: a
// scrape shows the whole simulation or nothing. Its reads are a few
// (the figures, the broker's counts, the per-consumer rows), each of one
// moment; a simulation running meanwhile may move between them.
func (c *Collector) read(ctx context.Context, s *sim.Sim, start time.Time) ([]prometheus.Metric, error) {
	ms, err := s.Metrics(ctx)
	if err != nil {
		return nil, fmt.Errorf("read metrics: %w", err)
	}
	ors, err := s.Oracles(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the broker's counts: %w", err)
	}
	out := []prometheus.Metric{prometheus.MustNewConstMetric(descVirtualTime, prometheus.GaugeValue, unixSeconds(s.Now()))}
	for _, m := range ms {
		r := pipelineRead{m: m.Metrics}
		for _, o := range ors {
			if o.Pipeline == m.Pipeline {
				r.o = o
			}
		}
		for _, f := range figures {
			if f.kind == prometheus.CounterValue {
				out = append(out, prometheus.MustNewConstMetricWithCreatedTimestamp(f.desc, f.kind, f.of(r), start, m.Pipeline))
			} else {
				out = append(out, prometheus.MustNewConstMetric(f.desc, f.kind, f.of(r), m.Pipeline))
			}
		}
		// Every consumer of the pipeline, one that recognised nothing yet at 0.
		dups := m.Counted.DuplicatesIgnoredBy
		names := append([]string(nil), consumers...)
		for name := range dups {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
		for _, name := range names {
			out = append(out, prometheus.MustNewConstMetricWithCreatedTimestamp(descDuplicatesIgnored, prometheus.CounterValue, float64(dups[name]), start, m.Pipeline, name))
		}
		out = append(out,
			histogram(descOccurredToPublished, m.OccurredToPublished, start, m.Pipeline),
			histogram(descPublishedToProcessed, m.PublishedToProcessed, start, m.Pipeline))
		if c.cfg.DatabaseURL == nil {
			continue
		}
		per, err := c.perConsumer(ctx, m.Pipeline)
		if err != nil {
			return nil, err
		}
		out = append(out, per...)
	}
	return out, nil
}

// histogram is a latency as a Prometheus histogram in seconds.
func histogram(d *prometheus.Desc, l engine.LatencySummary, start time.Time, pipeline string) prometheus.Metric {
	buckets := make(map[float64]uint64, len(engine.LatencyBuckets))
	for i, le := range engine.LatencyBuckets {
		buckets[le.Seconds()] = uint64(l.Buckets[i])
	}
	return prometheus.MustNewConstHistogramWithCreatedTimestamp(d, uint64(l.Count), l.Sum.Seconds(), buckets, start, pipeline)
}

// perConsumer reads each consumer's inbox rows and effects from the
// pipeline's database, on a connection of its own that it closes.
func (c *Collector) perConsumer(ctx context.Context, pipeline string) ([]prometheus.Metric, error) {
	cfg, err := pgx.ParseConfig(c.cfg.DatabaseURL(pipeline))
	if err != nil {
		return nil, fmt.Errorf("%s database: %w", pipeline, err)
	}
	cfg.RuntimeParams["application_name"] = "outboxlab-metrics"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s database: connect: %w", pipeline, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	by, err := ReadConsumerFigures(ctx, conn)
	if err != nil {
		return nil, fmt.Errorf("%s database: %w", pipeline, err)
	}
	names := append([]string(nil), consumers...)
	for name := range by {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	var out []prometheus.Metric
	for _, name := range names {
		out = append(out,
			prometheus.MustNewConstMetric(descInboxMessages, prometheus.GaugeValue, float64(by[name].Inbox), pipeline, name),
			prometheus.MustNewConstMetric(descEffects, prometheus.GaugeValue, float64(by[name].Effects), pipeline, name))
	}
	return out, nil
}

// run notes which run of which simulation this scrape reads: a simulation
// it has not seen, or one reset since (its timeline's epoch moved), starts
// a run. It returns the run's start and the resets counted so far.
func (c *Collector) run(s *sim.Sim) (time.Time, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s == nil {
		return c.start, c.resets
	}
	known := 0 // a new simulation starts at epoch 0
	if s == c.seen {
		known = c.epoch
	}
	// From past the end: no entries are copied unless the epoch moved.
	_, epoch, _ := s.TimelineSince(known, math.MaxInt)
	switch {
	case c.seen == nil:
		c.start = c.cfg.Now()
	case s != c.seen:
		c.resets += 1 + int64(epoch)
		c.start = c.cfg.Now()
	case epoch != c.epoch:
		c.resets += int64(max(epoch-c.epoch, 1))
		c.start = c.cfg.Now()
	}
	c.seen, c.epoch = s, epoch
	return c.start, c.resets
}

func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// ReadConsumerFigures reads each consumer's inbox rows and effects from a
// pipeline's database (the simulation's collector and a deployment's
// snapshot both), keyed by consumer name; a consumer with none is absent.
func ReadConsumerFigures(ctx context.Context, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}) (map[string]ConsumerFigures, error) {
	rows, err := q.Query(ctx, sqlConsumerFigures)
	if err != nil {
		return nil, fmt.Errorf("consumer_figures: %w", err)
	}
	by := map[string]ConsumerFigures{}
	var c ConsumerFigures
	_, err = pgx.ForEachRow(rows, []any{&c.Name, &c.Inbox, &c.Effects}, func() error {
		by[c.Name] = c
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("consumer_figures: %w", err)
	}
	return by, nil
}
