package telemetry

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/prometheus/client_golang/prometheus"
)

// DeploymentFigures are the figures only a deployment's database has
// (serve --broker nats, live), read by whoever runs it (deploy's
// Snapshot): this package does not import the deployment, so the import
// goes downward, deploy → telemetry.
type DeploymentFigures struct {
	Payments, Pending, Published, Dead int64
	// OldestPendingAge is wall-clock time: a deployment runs on the system clock.
	OldestPendingAge time.Duration
	// AttemptsPerMessage is the mean attempts of the rows marked published.
	AttemptsPerMessage float64
	Consumers          []ConsumerFigures
}

// BrokerFigures are what the broker says when asked.
type BrokerFigures struct {
	// StreamMessages is what the pipeline's stream holds.
	StreamMessages int64
}

// ConsumerFigures are one consumer's figures.
type ConsumerFigures struct {
	Name              string
	Inbox, Effects    int64
	DuplicatesIgnored int64
	// Unapplied are the messages published (marked in the outbox) that the
	// consumer has not applied yet (no inbox row), and OldestUnappliedAge
	// how long ago the oldest of them was published: a consumer stalled or
	// a stream that lost them shows here, where pending says nothing.
	// Deployments only.
	Unapplied          int64
	OldestUnappliedAge time.Duration
}

// DeploymentSource says where a deployment's figures come from. The
// database and the broker are read apart, each one read at a time in the
// background (reading.go): either one down or slow leaves the other's
// figures current, and no scrape waits on them longer than Wait.
type DeploymentSource struct {
	// Database reads the database's figures; its context ends at Timeout,
	// and the read should bound its statements with StatementTimeout.
	Database func(context.Context) (DeploymentFigures, error)
	// Broker asks the broker; an error says it is down. Nil: no broker to
	// ask, taken to be up.
	Broker func(context.Context) (BrokerFigures, error)
	// Counters are the actors' (in memory, read at every scrape): the
	// attempts, publishes, dead letters and latency histograms a
	// simulation serves too. Nil leaves them out.
	Counters *engine.Counters
	// Deliveries counts the deliveries the broker handed out (in memory);
	// nil leaves outboxlab_deliveries_total out.
	Deliveries func() int64
	// OnError hears why a read of the database failed; nil ignores it.
	OnError func(error)
	// Wait and Timeout: default ScrapeWait and ReadTimeout.
	Wait, Timeout time.Duration
}

// deployPipeline labels a deployment's figures: it runs the outbox pipeline
// only, under the same names and labels as a simulation's, so one
// dashboard reads both.
const deployPipeline = "outbox"

var (
	descDeployUp = prometheus.NewDesc(namespace+"_up",
		"1 if the last read of the deployment's database succeeded and the one under way (if any) is not late; 0 if it failed (PostgreSQL down) or hangs (a table locked). The database's figures that follow are the last good read's, outboxlab_figures_age_seconds{source=\"database\"} old.", nil, nil)
	descDeployRunStart = prometheus.NewDesc(namespace+"_run_start_time_seconds",
		"Wall-clock Unix time this endpoint started: the counters and histograms count from zero since then.", nil, nil)
	descDeployPending = prometheus.NewDesc(namespace+"_outbox_pending_messages",
		"Outbox rows still to publish, neither published nor dead-lettered. From the database.", pipelineLabel, nil)
	descDeployOldest = prometheus.NewDesc(namespace+"_outbox_oldest_pending_age_seconds",
		"Wall-clock seconds since the oldest pending outbox row occurred (0 when none is pending), as of the database's read: the figure that says the relays are behind. From the database.", pipelineLabel, nil)
	descDeployAttemptsPerMessage = prometheus.NewDesc(namespace+"_outbox_attempts_per_published_message",
		"Mean attempts of the outbox rows marked published (1 = first try). From the database.", pipelineLabel, nil)
	descDeployDead = prometheus.NewDesc(namespace+"_outbox_dead_lettered_messages",
		"Outbox rows dead-lettered now. From the database.", pipelineLabel, nil)
	descDeployPayments = prometheus.NewDesc(namespace+"_payments",
		"Payments the API wrote, each in one transaction with its outbox row. From the database.", pipelineLabel, nil)
	descDeployInbox = prometheus.NewDesc(namespace+"_inbox_messages",
		"Rows in the consumer's inbox: the messages it processed, once each. From the database.", consumerLabel, nil)
	descDeployEffects = prometheus.NewDesc(namespace+"_consumer_effects",
		"Effect rows the consumer wrote (accounting: ledger_entries, notifications: notifications). From the database.", consumerLabel, nil)
	descDeployUnapplied = prometheus.NewDesc(namespace+"_consumer_unapplied_messages",
		"Outbox rows marked published that the consumer has not applied yet (no row in its inbox): in the broker, in flight, or lost to it. From the database.", consumerLabel, nil)
	descDeployOldestUnapplied = prometheus.NewDesc(namespace+"_consumer_oldest_unapplied_age_seconds",
		"Wall-clock seconds since the oldest message the consumer has not applied yet was published (0 when none): the figure that says a consumer is behind. From the database.", consumerLabel, nil)
	descDeployBrokerUp = prometheus.NewDesc(namespace+"_broker_up",
		"1 if the broker answered its last read and the one under way (if any) is not late.", nil, nil)
	descDeployStream = prometheus.NewDesc(namespace+"_broker_stream_messages",
		"Messages in the pipeline's JetStream stream: those some consumer has not acked yet (one acked by every consumer leaves a moment after its last ack: the deployment's broker purges it). As of the broker's last good read.", pipelineLabel, nil)

	descDeployPublishes = prometheus.NewDesc(namespace+"_publishes_total",
		"Messages the broker accepted from the relays (a publish inside the stream's dedup window is accepted and dropped, and counts).", pipelineLabel, nil)
	descDeployDeliveries = prometheus.NewDesc(namespace+"_deliveries_total",
		"Deliveries the broker handed to this process's consumers, redeliveries included: at least once, never exactly once.", pipelineLabel, nil)
	descDeployAttempts = prometheus.NewDesc(namespace+"_outbox_publish_attempts_total",
		"Publish attempts: relay claims of outbox rows, one attempt each.", pipelineLabel, nil)
	descDeployPublished = prometheus.NewDesc(namespace+"_outbox_published_messages_total",
		"Outbox rows the relays marked published.", pipelineLabel, nil)
	descDeployDeadLetters = prometheus.NewDesc(namespace+"_outbox_dead_letters_total",
		"Outbox rows the relays dead-lettered after their last attempt.", pipelineLabel, nil)
	descDeployLeases = prometheus.NewDesc(namespace+"_outbox_expired_leases_recovered_total",
		"Relay claims of rows whose earlier lease had expired: a relay died or stalled holding them.", pipelineLabel, nil)
	descDeployDuplicates = prometheus.NewDesc(namespace+"_inbox_duplicates_ignored_total",
		"Deliveries a consumer's inbox recognised as already processed: committed and ACKed, no second effect.", consumerLabel, nil)
	descDeployOccurredToPublished = prometheus.NewDesc(namespace+"_occurred_to_published_seconds",
		"Wall-clock seconds from an event's occurred_at to the broker accepting its publish; a republish observes again.", pipelineLabel, nil)
	descDeployPublishedToProcessed = prometheus.NewDesc(namespace+"_published_to_processed_seconds",
		"Wall-clock seconds from the broker accepting a message to a consumer committing its effect, every consumer together.", pipelineLabel, nil)
)

// DeploymentCollector is a prometheus.Collector of a deployment's figures:
// the database's and the broker's from their last good reads, the actors'
// counters as they are at the scrape. Safe for concurrent scrapes.
type DeploymentCollector struct {
	src    DeploymentSource
	start  time.Time
	db     *reading[DeploymentFigures]
	broker *reading[BrokerFigures]
}

// NewDeploymentCollector reads the figures src says.
func NewDeploymentCollector(src DeploymentSource) *DeploymentCollector {
	if src.Wait <= 0 {
		src.Wait = ScrapeWait
	}
	if src.Timeout <= 0 {
		src.Timeout = ReadTimeout
	}
	return &DeploymentCollector{src: src, start: time.Now(),
		db: newReading[DeploymentFigures](src.Timeout, time.Now, src.OnError),
		// The broker down is what outboxlab_broker_up says, each scrape: not
		// an error to log at each one.
		broker: newReading[BrokerFigures](src.Timeout, time.Now, nil)}
}

// Describe sends every metric's description.
func (c *DeploymentCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descDeployUp, descFiguresAge, descDeployRunStart, descDeployPending, descDeployOldest,
		descDeployAttemptsPerMessage, descDeployDead, descDeployPayments, descDeployInbox, descDeployEffects, descDeployUnapplied,
		descDeployOldestUnapplied, descDeployBrokerUp,
		descDeployStream, descDeployPublishes, descDeployDeliveries, descDeployAttempts, descDeployPublished, descDeployDeadLetters,
		descDeployLeases, descDeployDuplicates, descDeployOccurredToPublished, descDeployPublishedToProcessed} {
		ch <- d
	}
}

// Collect sends the figures: the database's and the broker's read at once,
// each waited for at most Wait.
func (c *DeploymentCollector) Collect(ch chan<- prometheus.Metric) {
	var (
		db     readState[DeploymentFigures]
		broker readState[BrokerFigures]
		wg     sync.WaitGroup
	)
	wg.Go(func() { db = c.db.get(c.src.Database, c.src.Wait) })
	if c.src.Broker != nil {
		wg.Go(func() { broker = c.broker.get(c.src.Broker, c.src.Wait) })
	}
	wg.Wait()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetricWithCreatedTimestamp(d, prometheus.CounterValue, v, c.start, labels...)
	}
	gauge(descDeployUp, bool01(db.up))
	gauge(descFiguresAge, db.age.Seconds(), "database")
	gauge(descDeployRunStart, unixSeconds(c.start))
	if c.src.Broker != nil {
		gauge(descDeployBrokerUp, bool01(broker.up))
		gauge(descFiguresAge, broker.age.Seconds(), "broker")
		if broker.ok {
			gauge(descDeployStream, float64(broker.value.StreamMessages), deployPipeline)
		}
	} else {
		gauge(descDeployBrokerUp, 1)
	}
	names := slices.Clone(consumers)
	if db.ok {
		f := db.value
		gauge(descDeployPending, float64(f.Pending), deployPipeline)
		gauge(descDeployOldest, f.OldestPendingAge.Seconds(), deployPipeline)
		gauge(descDeployAttemptsPerMessage, f.AttemptsPerMessage, deployPipeline)
		gauge(descDeployDead, float64(f.Dead), deployPipeline)
		gauge(descDeployPayments, float64(f.Payments), deployPipeline)
		for _, con := range f.Consumers {
			gauge(descDeployInbox, float64(con.Inbox), deployPipeline, con.Name)
			gauge(descDeployEffects, float64(con.Effects), deployPipeline, con.Name)
			gauge(descDeployUnapplied, float64(con.Unapplied), deployPipeline, con.Name)
			gauge(descDeployOldestUnapplied, con.OldestUnappliedAge.Seconds(), deployPipeline, con.Name)
			if !slices.Contains(names, con.Name) {
				names = append(names, con.Name)
			}
		}
	}
	if c.src.Deliveries != nil {
		counter(descDeployDeliveries, float64(c.src.Deliveries()), deployPipeline)
	}
	if c.src.Counters == nil {
		return
	}
	v := c.src.Counters.Values()
	counter(descDeployPublishes, float64(v.Published), deployPipeline)
	counter(descDeployAttempts, float64(v.Claimed), deployPipeline)
	counter(descDeployPublished, float64(v.Marked), deployPipeline)
	counter(descDeployDeadLetters, float64(v.DeadLettered), deployPipeline)
	counter(descDeployLeases, float64(v.LeasesRecovered), deployPipeline)
	for name := range v.DuplicatesIgnoredBy {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	for _, name := range names {
		counter(descDeployDuplicates, float64(v.DuplicatesIgnoredBy[name]), deployPipeline, name)
	}
	ch <- histogram(descDeployOccurredToPublished, c.src.Counters.OccurredToPublished.Summary(), c.start, deployPipeline)
	ch <- histogram(descDeployPublishedToProcessed, c.src.Counters.PublishedToProcessed.Summary(), c.start, deployPipeline)
}

// DeploymentHandler serves c's figures at GET /metrics, with the Go and
// process collectors (NewDeploymentMetrics; requests not instrumented).
func DeploymentHandler(c *DeploymentCollector) http.Handler {
	return NewDeploymentMetrics(c).Handler()
}
