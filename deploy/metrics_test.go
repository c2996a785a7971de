package deploy

import (
	"context"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/jetstream"
	"github.com/outboxlab/outboxlab/httpapi"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/telemetry"
	"github.com/outboxlab/outboxlab/telemetry/telemetrytest"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// served is a deployment behind a real listener, its database's URL, and
// how to take its broker down and bring it back.
type served struct {
	*Deployment
	base, dbURL string
	down, up    func()
}

// serveDeployment launches a deployment with its HTTP API on embedded
// JetStream. unreachable reaches the server as at a URL, through a proxy
// that down freezes (bytes stop flowing both ways, the connections stay
// open): a NATS node that went away without a word, as in a cluster whose
// stream's node is cut off. The deployment can only ask, and the answer is
// the broker's timeout. Otherwise down stops the embedded server. An
// actor's unexpected end or a failed read fails the test, but for the
// errors allow matches (testrun.BackgroundErrors).
func serveDeployment(t *testing.T, unreachable bool, allow ...string) served {
	t.Helper()
	_, db := pgtest.DB(t)
	url := pgtest.Server(t).DatabaseURL(db)
	cfg := jetstream.Config{Timeout: 2 * time.Second}
	var (
		j   *JetStream
		err error
		sv  served
	)
	if unreachable {
		srv, err := jetstream.StartServer(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.Stop)
		p := freezingProxy(t, srv)
		if j, err = OpenJetStream(context.Background(), BrokerChoice{Kind: BrokerNATSURL, URL: p.url}, "", cfg); err != nil {
			t.Fatal(err)
		}
		sv.down, sv.up = func() { p.frozen.Store(true) }, func() { p.frozen.Store(false) }
	} else {
		if j, err = OpenJetStream(context.Background(), BrokerChoice{Kind: BrokerNATS}, t.TempDir(), cfg); err != nil {
			t.Fatal(err)
		}
		sv.down = j.Server.Stop
		sv.up = func() {
			if err := j.Server.Start(); err != nil {
				t.Fatal(err)
			}
		}
	}
	e, err := httpapi.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o := Options{DatabaseURL: url, Broker: j.Broker, HTTP: e, Server: j.Server,
		Relay:   engine.RelayConfig{PollInterval: 100 * time.Millisecond, Lease: time.Second},
		OnError: testrun.BackgroundErrors(t, allow...)}
	ctx, cancel := context.WithCancel(context.Background())
	d, err := Launch(ctx, o)
	if err != nil {
		cancel()
		j.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		d.Wait()
		j.Close()
	})
	sv.Deployment, sv.base, sv.dbURL = d, "http://"+e.Addr, url
	return sv
}

// proxy forwards TCP connections to an embedded server's in-process ones
// until frozen.
type proxy struct {
	url    string
	frozen atomic.Bool
}

func freezingProxy(t *testing.T, srv *jetstream.Server) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &proxy{url: "nats://" + ln.Addr().String()}
	pipe := func(dst, src net.Conn) {
		defer dst.Close()
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			for p.frozen.Load() {
				time.Sleep(5 * time.Millisecond) // pacing: a frozen pipe asks again until it thaws, for as long as the test keeps it down
			}
			if n > 0 {
				if _, err := dst.Write(buf[:n]); err != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := srv.InProcessConn()
			if err != nil {
				c.Close()
				continue
			}
			go pipe(s, c)
			go pipe(c, s)
		}
	}()
	return p
}

// alwaysThere is what the deployment's /metrics says whatever is down:
// up, broker_up and the figures' ages.
var alwaysThere = []*regexp.Regexp{
	regexp.MustCompile(`(?m)^outboxlab_up [01]$`),
	regexp.MustCompile(`(?m)^outboxlab_broker_up [01]$`),
	regexp.MustCompile(`(?m)^outboxlab_figures_age_seconds\{source="database"\} [0-9.e+-]+$`),
	regexp.MustCompile(`(?m)^outboxlab_figures_age_seconds\{source="broker"\} [0-9.e+-]+$`),
}

// /metrics answers within 100 ms whatever is down, from the last good
// read, with outboxlab_up, outboxlab_broker_up and the figures' age always
// there. A table locked by another session (LOCK TABLE … ACCESS EXCLUSIVE
// in an open transaction): every scrape answers, the database's figures
// grow old, outboxlab_up falls to 0 once PostgreSQL ends the read at its
// statement_timeout, and no more than one read of ours waits on the lock
// at any time (they do not pile up on the server); the lock released, up
// is 1 again. Before: each scrape waited 5 s on the lock and then said
// only outboxlab_up 0.
func TestMetricsAnswerWithATableLocked(t *testing.T) {
	d := serveDeployment(t, false, `^snapshot: ERROR: canceling statement due to statement timeout \(SQLSTATE 57014\)$`)
	for range 3 {
		if _, err := d.PostPayment(context.Background(), 1250); err != nil {
			t.Fatal(err)
		}
	}
	telemetrytest.ScrapeUntil(t, d.base+"/metrics", "3 carried", "outboxlab_up 1", `outboxlab_outbox_published_messages_total{pipeline="outbox"} 3`,
		`outboxlab_inbox_messages{consumer="notifications",pipeline="outbox"} 3`)

	ctx := context.Background()
	locker, err := pgx.Connect(ctx, d.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(ctx)
	tx, err := locker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE outbox_messages IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	locked := time.Now()
	p99, bodies := telemetrytest.Scrapes(t, d.base+"/metrics", "outbox_messages locked", 50, alwaysThere...)
	if p99 > telemetrytest.Budget {
		t.Errorf("p99 %s with a table locked", p99)
	}
	// The last good read's figures are still served meanwhile.
	for _, b := range bodies {
		if !strings.Contains(b, `outboxlab_payments{pipeline="outbox"} 3`+"\n") {
			t.Errorf("a scrape with the table locked lost the last good figures:\n%s", b)
			break
		}
	}
	body := telemetrytest.ScrapeUntil(t, d.base+"/metrics", "the read ended by its statement_timeout", "outboxlab_up 0")
	if m := regexp.MustCompile(`outboxlab_figures_age_seconds\{source="database"\} ([0-9.e+-]+)`).FindStringSubmatch(body); m == nil {
		t.Errorf("no database age:\n%s", body)
	} else if age, _ := time.ParseDuration(m[1] + "s"); age < time.Since(locked)-time.Second {
		t.Errorf("figures %s old, locked %s ago", age, time.Since(locked))
	}
	// Reads do not pile up on the server: at most one waits on the lock
	// (the relays' claims wait too, on their own connections).
	for range 10 {
		var waiting int
		if err := pgxCount(ctx, d.dbURL, &waiting, `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database() AND application_name = 'outboxlab-snapshot'`); err != nil {
			t.Fatal(err)
		}
		if waiting > 1 {
			t.Errorf("%d reads wait on the lock at once", waiting)
		}
		telemetrytest.Scrape(t, d.base+"/metrics")
		time.Sleep(200 * time.Millisecond) // pacing: ten looks, two seconds of scrapes, for reads that would pile up

	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	telemetrytest.ScrapeUntil(t, d.base+"/metrics", "the lock released", "outboxlab_up 1")
}

// The broker down: the embedded server stopped, and a NATS server that
// went away without a word (a proxy that stops forwarding: requests get
// no answer, the broker's 2 s timeout decides). Every scrape answers
// within 100 ms, outboxlab_broker_up 0 shows (the figure that says the
// broker is down is there when it is down) and the database's figures stay
// current: a payment posted meanwhile is pending in them; the broker is
// said down by the last scrape (a second and more after it went: a read
// late by ReadLate is enough to say so). Before: with the server
// unreachable every scrape waited the broker's 2 s timeout.
func TestMetricsAnswerWithTheBrokerDown(t *testing.T) {
	for _, c := range []struct {
		name        string
		unreachable bool
	}{{"embedded JetStream stopped", false}, {"NATS unreachable", true}} {
		t.Run(c.name, func(t *testing.T) {
			d := serveDeployment(t, c.unreachable)
			if _, err := d.PostPayment(context.Background(), 1250); err != nil {
				t.Fatal(err)
			}
			telemetrytest.ScrapeUntil(t, d.base+"/metrics", "1 carried", "outboxlab_up 1", "outboxlab_broker_up 1",
				`outboxlab_inbox_messages{consumer="notifications",pipeline="outbox"} 1`)
			d.down()
			downAt := time.Now()
			if _, err := d.PostPayment(context.Background(), 1250); err != nil {
				t.Fatal(err)
			}
			p99, bodies := telemetrytest.Scrapes(t, d.base+"/metrics", c.name, 50, alwaysThere...)
			if p99 > telemetrytest.Budget {
				t.Errorf("p99 %s with the broker down", p99)
			}
			pending := false
			for _, b := range bodies {
				pending = pending || strings.Contains(b, `outboxlab_outbox_pending_messages{pipeline="outbox"} 1`+"\n")
			}
			if !pending {
				t.Errorf("with the broker down, no scrape had the payment pending:\n%s", bodies[len(bodies)-1])
			}
			if !strings.Contains(bodies[len(bodies)-1], "outboxlab_broker_up 0\n") {
				t.Errorf("%s after the broker went down, the scrape says:\n%s", time.Since(downAt), bodies[len(bodies)-1])
			}
			d.up()
			telemetrytest.ScrapeUntil(t, d.base+"/metrics", "the broker back", "outboxlab_broker_up 1", `outboxlab_outbox_pending_messages{pipeline="outbox"} 0`)
		})
	}
}

func pgxCount(ctx context.Context, url string, n *int, q string) error {
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	if err := c.QueryRow(ctx, q).Scan(n); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	return nil
}

// simulationFamilies are the metric names the simulation's /metrics can
// serve, from its collector's descriptions.
func simulationFamilies(t *testing.T) []string {
	t.Helper()
	ch := make(chan *prometheus.Desc, 64)
	telemetry.NewCollector(telemetry.Config{}).Describe(ch)
	close(ch)
	rx := regexp.MustCompile(`fqName: "([a-z_]+)"`)
	var out []string
	for d := range ch {
		m := rx.FindStringSubmatch(d.String())
		if m == nil {
			t.Fatalf("no name in %s", d)
		}
		out = append(out, m[1])
	}
	return out
}

// A deployment on JetStream serves the simulation's metric families (the
// engine's counters and latency histograms with them: attempts, publishes,
// deliveries, dead letters, leases recovered), but for the virtual clock's
// own; before, it served no histogram and no attempt counter. The
// histograms count what the deployment did: one occurred→published sample
// per publish, one published→processed per consumer's effect.
func TestDeploymentServesTheSimulationsFamilies(t *testing.T) {
	d := serveDeployment(t, false)
	for range 3 {
		if _, err := d.PostPayment(context.Background(), 1250); err != nil {
			t.Fatal(err)
		}
	}
	body := telemetrytest.ScrapeUntil(t, d.base+"/metrics", "3 carried", `outboxlab_inbox_messages{consumer="notifications",pipeline="outbox"} 3`,
		`outboxlab_inbox_messages{consumer="accounting",pipeline="outbox"} 3`)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	virtualOnly := []string{"outboxlab_virtual_time_seconds", "outboxlab_outbox_publishes_per_virtual_second", "outboxlab_run_resets_total"}
	for _, name := range simulationFamilies(t) {
		if _, ok := fams[name]; !ok && !slices.Contains(virtualOnly, name) {
			t.Errorf("the deployment's /metrics lacks the simulation's %s", name)
		}
	}
	for name, want := range map[string]uint64{"outboxlab_occurred_to_published_seconds": 3, "outboxlab_published_to_processed_seconds": 6} {
		f, ok := fams[name]
		if !ok || f.GetType() != dto.MetricType_HISTOGRAM {
			t.Errorf("no histogram %s", name)
			continue
		}
		h := f.GetMetric()[0].GetHistogram()
		if h.GetSampleCount() != want || len(h.GetBucket()) != len(engine.LatencyBuckets)+1 {
			t.Errorf("%s: %d samples in %d buckets, want %d in %d and +Inf", name, h.GetSampleCount(), len(h.GetBucket()), want, len(engine.LatencyBuckets))
		}
	}
	for _, line := range []string{`outboxlab_outbox_publish_attempts_total{pipeline="outbox"} 3`, `outboxlab_publishes_total{pipeline="outbox"} 3`,
		`outboxlab_deliveries_total{pipeline="outbox"} 6`, `outboxlab_outbox_attempts_per_published_message{pipeline="outbox"} 1`} {
		if !strings.Contains(body, line+"\n") {
			t.Errorf("/metrics lacks %s:\n%s", line, body)
		}
	}
}
