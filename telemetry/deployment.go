package telemetry

import (
	"context"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// DeploymentFigures are a deployment's figures (serve --broker nats, live)
// at one scrape, read from its database by whoever runs it (deploy's
// Snapshot): this package does not import the deployment, so the import
// goes downward, deploy → telemetry.
type DeploymentFigures struct {
	Payments, Pending, Published, Dead int64
	// OldestPendingAge is wall-clock time: a deployment runs on the system clock.
	OldestPendingAge time.Duration
	Consumers        []ConsumerFigures
	// BrokerUp: JetStream answered; StreamMessages is then what its stream holds.
	BrokerUp       bool
	StreamMessages int64
}

// ConsumerFigures are one consumer's figures.
type ConsumerFigures struct {
	Name              string
	Inbox, Effects    int64
	DuplicatesIgnored int64
}

// deployPipeline labels a deployment's figures: it runs the outbox pipeline
// only, under the same names and labels as a simulation's, so one
// dashboard reads both.
const deployPipeline = "outbox"

var (
	descDeployUp = prometheus.NewDesc(namespace+"_up",
		"1 if this scrape read the deployment's database; 0 if it could not (PostgreSQL down), and then no figure follows.", nil, nil)
	descDeployPending = prometheus.NewDesc(namespace+"_outbox_pending_messages",
		"Outbox rows still to publish, neither published nor dead-lettered. From the database.", pipelineLabel, nil)
	descDeployOldest = prometheus.NewDesc(namespace+"_outbox_oldest_pending_age_seconds",
		"Wall-clock seconds since the oldest pending outbox row occurred (0 when none is pending): the figure that says the relays are behind. From the database.", pipelineLabel, nil)
	descDeployPublished = prometheus.NewDesc(namespace+"_outbox_published_messages_total",
		"Outbox rows marked published. From the database.", pipelineLabel, nil)
	descDeployDead = prometheus.NewDesc(namespace+"_outbox_dead_lettered_messages",
		"Outbox rows dead-lettered now. From the database.", pipelineLabel, nil)
	descDeployPayments = prometheus.NewDesc(namespace+"_payments",
		"Payments the API wrote, each in one transaction with its outbox row. From the database.", pipelineLabel, nil)
	descDeployInbox = prometheus.NewDesc(namespace+"_inbox_messages",
		"Rows in the consumer's inbox: the messages it processed, once each. From the database.", consumerLabel, nil)
	descDeployEffects = prometheus.NewDesc(namespace+"_consumer_effects",
		"Effect rows the consumer wrote (accounting: ledger_entries, notifications: notifications). From the database.", consumerLabel, nil)
	descDeployDuplicates = prometheus.NewDesc(namespace+"_inbox_duplicates_ignored_total",
		"Deliveries a consumer's inbox recognised as already processed, since this process started.", consumerLabel, nil)
	descDeployBrokerUp = prometheus.NewDesc(namespace+"_broker_up",
		"1 if JetStream answered this scrape.", nil, nil)
	descDeployStream = prometheus.NewDesc(namespace+"_broker_stream_messages",
		"Messages in the pipeline's JetStream stream: with interest retention, those some consumer has not acked yet.", pipelineLabel, nil)
)

// DeploymentCollector is a prometheus.Collector that reads a deployment's
// figures when scraped; nothing is kept between scrapes.
type DeploymentCollector struct {
	read    func(context.Context) (DeploymentFigures, error)
	onError func(error)
	timeout time.Duration
}

// NewDeploymentCollector reads the figures with read at each scrape; onError
// (nil: ignored) hears why a scrape could not.
func NewDeploymentCollector(read func(context.Context) (DeploymentFigures, error), onError func(error)) *DeploymentCollector {
	if onError == nil {
		onError = func(error) {}
	}
	return &DeploymentCollector{read: read, onError: onError, timeout: 5 * time.Second}
}

// Describe sends every metric's description.
func (c *DeploymentCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descDeployUp, descDeployPending, descDeployOldest, descDeployPublished, descDeployDead,
		descDeployPayments, descDeployInbox, descDeployEffects, descDeployDuplicates, descDeployBrokerUp, descDeployStream} {
		ch <- d
	}
}

// Collect reads the deployment and sends its figures.
func (c *DeploymentCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	f, err := c.read(ctx)
	if err != nil {
		c.onError(err)
		ch <- prometheus.MustNewConstMetric(descDeployUp, prometheus.GaugeValue, 0)
		return
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge(descDeployUp, 1)
	gauge(descDeployPending, float64(f.Pending), deployPipeline)
	gauge(descDeployOldest, f.OldestPendingAge.Seconds(), deployPipeline)
	counter(descDeployPublished, float64(f.Published), deployPipeline)
	gauge(descDeployDead, float64(f.Dead), deployPipeline)
	gauge(descDeployPayments, float64(f.Payments), deployPipeline)
	for _, con := range f.Consumers {
		gauge(descDeployInbox, float64(con.Inbox), deployPipeline, con.Name)
		gauge(descDeployEffects, float64(con.Effects), deployPipeline, con.Name)
		counter(descDeployDuplicates, float64(con.DuplicatesIgnored), deployPipeline, con.Name)
	}
	up := 0.0
	if f.BrokerUp {
		up = 1
		gauge(descDeployStream, float64(f.StreamMessages), deployPipeline)
	}
	gauge(descDeployBrokerUp, up)
}

// DeploymentHandler serves c's figures at GET /metrics, from a registry of
// its own.
func DeploymentHandler(c *DeploymentCollector) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{MaxRequestsInFlight: 4, EnableOpenMetrics: true})
}
