package telemetry

import (
	"context"
	_ "embed"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/outboxlab/outboxlab/engine"
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
	Sim func() Simulation
	// DatabaseURL returns the URL of a pipeline's database ("outbox",
	// "naive"), for the figures only the database has per consumer; nil
	// leaves them out. Each read opens one short connection per pipeline
	// (its statement_timeout StatementTimeout) and closes it: nothing stays
	// open to hold up a reset of the database.
	DatabaseURL func(pipeline string) string
	// Timeout bounds one read; default ReadTimeout.
	Timeout time.Duration
	// Wait is how long a scrape waits for a read under way before it
	// answers with the last good one; default ScrapeWait.
	Wait time.Duration
	// OnError hears why a read could not read the simulation (outboxlab_up
	// is then 0); nil ignores it. It runs on the read's goroutine.
	OnError func(error)
	// Now is the wall clock, for a run's start; default time.Now.
	Now func() time.Time
}

// Collector is a prometheus.Collector that reads the simulation when
// scraped, one read at a time, and answers with the last good read when
// the one under way is slow. Safe for concurrent scrapes.
type Collector struct {
	cfg  Config
	last *reading[simRead]

	mu     sync.Mutex
	seen   Simulation // the simulation of the run being counted
	epoch  int        // its resets when last seen (Simulation.Epoch)
	start  time.Time  // when this collector first saw the run: the counters' created time
	resets int64      // runs started over since the first one seen
}

// NewCollector returns a collector reading what cfg says.
func NewCollector(cfg Config) *Collector {
	if cfg.Timeout <= 0 {
		cfg.Timeout = ReadTimeout
	}
	if cfg.Wait <= 0 {
		cfg.Wait = ScrapeWait
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Collector{cfg: cfg, last: newReading[simRead](cfg.Timeout, time.Now, cfg.OnError)}
}

// simRead is one read of a simulation: every figure but those each scrape
// makes (up, the age, the broker's state, the resets).
type simRead struct {
	sim      Simulation
	start    time.Time // the run's, when read
	brokerUp bool
	figures  []prometheus.Metric
}

var (
	pipelineLabel = []string{"pipeline"}
	consumerLabel = []string{"pipeline", "consumer"}

	descUp = prometheus.NewDesc(namespace+"_up",
		"1 if the last read of the simulation and its databases succeeded and the one under way (if any) is not late; 0 if there is no simulation, a read failed (PostgreSQL down) or one hangs (a table locked). The figures that follow are the last good read's, outboxlab_figures_age_seconds old.", nil, nil)
	descFiguresAge = prometheus.NewDesc(namespace+"_figures_age_seconds",
		"Wall-clock seconds since the read of the figures served began (since the first scrape while none has succeeded): a scrape never waits on a slow read, it serves the last good one.", []string{"source"}, nil)
	descSimBrokerUp = prometheus.NewDesc(namespace+"_broker_up",
		"1 if the simulation's broker is up (the fault broker down takes it down for every pipeline), as of the last good read.", nil, nil)
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
	o BrokerCounts
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
	for _, d := range []*prometheus.Desc{descUp, descFiguresAge, descSimBrokerUp, descVirtualTime, descRunStart, descRunResets, descDuplicatesIgnored,
		descOccurredToPublished, descPublishedToProcessed, descInboxMessages, descEffects} {
		ch <- d
	}
	for _, f := range figures {
		ch <- f.desc
	}
}

// Collect sends the figures of the last good read of the simulation and
// its databases, after waiting for a fresh one at most cfg.Wait.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	var s Simulation
	if c.cfg.Sim != nil {
		s = c.cfg.Sim()
	}
	start, resets := c.run(s)
	ch <- prometheus.MustNewConstMetric(descRunResets, prometheus.CounterValue, float64(resets))
	var st readState[simRead]
	if s == nil {
		st = c.last.state()
	} else {
		st = c.last.get(func(ctx context.Context) (simRead, error) { return c.read(ctx, s, start) }, c.cfg.Wait)
	}
	// The last good read is served only while it is of the simulation
	// running now: another's figures are another run's.
	fresh := s != nil && st.ok && st.value.sim == s
	ch <- prometheus.MustNewConstMetric(descUp, prometheus.GaugeValue, bool01(fresh && st.up))
	ch <- prometheus.MustNewConstMetric(descFiguresAge, prometheus.GaugeValue, st.age.Seconds(), "simulation")
	ch <- prometheus.MustNewConstMetric(descSimBrokerUp, prometheus.GaugeValue, bool01(fresh && st.value.brokerUp))
	if !fresh {
		return
	}
	ch <- prometheus.MustNewConstMetric(descRunStart, prometheus.GaugeValue, unixSeconds(st.value.start))
	for _, m := range st.value.figures {
		ch <- m
	}
}

func bool01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// read makes every figure of the simulation's pipelines, or fails whole: a
// scrape shows one whole read of the simulation or nothing. Its reads are a few
// (the figures, the broker's counts, the per-consumer rows), each of one
// moment; a simulation running meanwhile may move between them.
func (c *Collector) read(ctx context.Context, s Simulation, start time.Time) (simRead, error) {
	read := simRead{sim: s, start: start, brokerUp: true}
	f, err := s.Figures(ctx)
	if err != nil {
		return read, err
	}
	read.brokerUp = f.BrokerUp
	out := []prometheus.Metric{prometheus.MustNewConstMetric(descVirtualTime, prometheus.GaugeValue, unixSeconds(f.Now))}
	for _, m := range f.Pipelines {
		r := pipelineRead{m: m.Metrics, o: m.Broker}
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
			return read, err
		}
		out = append(out, per...)
	}
	read.figures = out
	return read, nil
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
	cfg.RuntimeParams["statement_timeout"] = fmt.Sprint(StatementTimeout.Milliseconds())
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
func (c *Collector) run(s Simulation) (time.Time, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s == nil {
		return c.start, c.resets
	}
	epoch := s.Epoch()
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
