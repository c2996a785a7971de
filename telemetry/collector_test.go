package telemetry_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/simhttp"
	"github.com/outboxlab/outboxlab/telemetry"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var prefixes atomic.Int64

// freshRead is the scrapes' wait for a read in tests that compare a
// scrape with what the database holds at that moment: long enough for the
// read to end (a real scrape waits telemetry.ScrapeWait, and a slower read
// shows at the next scrape).
const freshRead = 30 * time.Second

// bundle is a session on embedded PostgreSQL and the endpoint that serves
// its figures over a real listener.
type bundle struct {
	srv *httptest.Server
	se  *sim.Session
	url func(pipeline string) string
	col *telemetry.Collector

	mu     sync.Mutex
	errors []error // what the collector could not read (OnError runs on the server's goroutine)
}

// setup plays a scene through a session the way the screen does (each
// `run` as the presses of n it takes) and serves /metrics for it.
func setup(t *testing.T, text string) *bundle {
	t.Helper()
	ctx := context.Background()
	sc, err := scenes.Parse("telemetry", "telemetry.scene", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	ns := pg.OwnNamespace(fmt.Sprintf("telemetrytest%d", prefixes.Add(1)))
	pg := pgtest.Server(t)
	se, err := sim.NewSession(ctx, sim.Config{Server: pg, Settings: sc.Settings, DBPrefix: ns.Prefix()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		se.Close()
		_ = ns.Drop(context.Background(), pg, sc.Settings.Pipelines()...)
	})
	b := &bundle{se: se, url: func(p string) string { return pg.DatabaseURL(ns.Database(p)) }}
	play(t, se, sc.Steps)
	b.col = telemetry.NewCollector(telemetry.Config{
		Sim:         func() telemetry.Simulation { return simhttp.Figures(se.Sim()) },
		DatabaseURL: b.url,
		Wait:        freshRead,
		OnError:     testrun.BackgroundErrors(t), // a read that fails fails the test
	})
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", telemetry.Handler(b.col))
	b.srv = httptest.NewServer(mux)
	t.Cleanup(b.srv.Close)
	return b
}

func play(t *testing.T, se *sim.Session, steps []scenes.Step) {
	t.Helper()
	ctx := context.Background()
	for _, st := range steps {
		if st.Cmd != "run" {
			if _, err := se.Do(ctx, st); err != nil {
				t.Fatalf("%s: %v", st, err)
			}
			continue
		}
		for {
			moved, err := se.Do(ctx, scenes.Next)
			if err != nil {
				t.Fatalf("next: %v", err)
			}
			if !moved {
				break
			}
		}
	}
}

// scrape GETs /metrics as Prometheus does, fails the test on anything
// promlint finds, and parses the text with Prometheus' own parser.
func (b *bundle) scrape(t *testing.T) map[string]*dto.MetricFamily {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.srv.URL+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /metrics: %s %s\n%s", resp.Status, resp.Header.Get("Content-Type"), body)
	}
	problems, err := promlint.New(bytes.NewReader(body)).Lint()
	if err != nil {
		t.Fatalf("promlint: %v", err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parse /metrics: %v\n%s", err, body)
	}
	b.mu.Lock()
	for _, err := range b.errors {
		t.Errorf("scrape error: %v", err)
	}
	b.errors = nil
	b.mu.Unlock()
	if t.Failed() {
		t.Logf("/metrics:\n%s", body)
	}
	return fams
}

// metric finds the series of a family with exactly these labels.
func metric(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels ...string) *dto.Metric {
	t.Helper()
	f, ok := fams[name]
	if !ok {
		t.Fatalf("no %s in the scrape", name)
	}
	want := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
next:
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) != len(want) {
			continue
		}
		for _, l := range m.GetLabel() {
			if want[l.GetName()] != l.GetValue() {
				continue next
			}
		}
		return m
	}
	t.Fatalf("no %s%v in the scrape", name, labels)
	return nil
}

// value is a counter's or a gauge's value, a histogram's count.
func value(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	t.Helper()
	m := metric(t, fams, name, labels...)
	switch fams[name].GetType() {
	case dto.MetricType_COUNTER:
		return m.GetCounter().GetValue()
	case dto.MetricType_GAUGE:
		return m.GetGauge().GetValue()
	case dto.MetricType_HISTOGRAM:
		return float64(m.GetHistogram().GetSampleCount())
	}
	t.Fatalf("%s is a %s", name, fams[name].GetType())
	return 0
}

// Everything the scenario gives the outbox: a relay crashes after
// publishing (its lease expires and the row is claimed and published again,
// so each consumer's inbox ignores a duplicate), a poison message is
// dead-lettered after three attempts, and a last payment waits, unpublished,
// ten virtual seconds. The naive pipeline gets the same requests (its
// naive writer, never moved after the last, leaves that one queued).
const compareScene = `title: telemetry
teaches: the figures of S24, scraped
mode: compare
max-attempts: 3

request amount=1250 client=acme
crash relay-1 at relay.published
run
advance 31s
drain
request amount=666 client=acme poison
drain
request amount=100 client=acme
finish api
advance 10s

expect outbox dead_lettered == 1
expect outbox duplicates_ignored == 2
expect outbox pending == 1
`

// A scrape says what the databases hold, read here by SQL.
func TestScrapeMatchesTheDatabase(t *testing.T) {
	t.Parallel()
	b := setup(t, compareScene)
	fams := b.scrape(t)
	if v := value(t, fams, "outboxlab_up"); v != 1 {
		t.Fatalf("outboxlab_up %v", v)
	}
	checkAgainstDatabase(t, b, fams)
	out := func(name string) float64 { return value(t, fams, name, "pipeline", "outbox") }
	// What the scenario made happen, so the checks above were not of zeros.
	for name, want := range map[string]float64{
		"outboxlab_outbox_pending_messages":               1,
		"outboxlab_outbox_oldest_pending_age_seconds":     10,
		"outboxlab_outbox_dead_letters_total":             1,
		"outboxlab_outbox_expired_leases_recovered_total": 1,
		"outboxlab_publishes_total":                       2,
	} {
		if got := out(name); math.Abs(got-want) > 0.001 {
			t.Errorf("outbox %s = %v, want %v", name, got, want)
		}
	}
	if v := value(t, fams, "outboxlab_run_resets_total"); v != 0 {
		t.Errorf("outboxlab_run_resets_total = %v before any rewind", v)
	}
	if got, want := value(t, fams, "outboxlab_virtual_time_seconds"), float64(b.se.Sim().Now().UnixNano())/1e9; math.Abs(got-want) > 1e-3 {
		t.Errorf("virtual time %v, want %v", got, want)
	}
	start := value(t, fams, "outboxlab_run_start_time_seconds")

	// Scrapes at once read the same figures.
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			resp, err := http.Get(b.srv.URL + "/metrics")
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("a scrape among three at once: %s", resp.Status)
			}
		})
	}
	wg.Wait()

	// A rewind replays the session on reset databases: the figures are what
	// PostgreSQL holds at that point, the counters start over, and the
	// endpoint says so.
	if _, err := b.se.Back(context.Background()); err != nil {
		t.Fatal(err)
	}
	fams = b.scrape(t)
	checkAgainstDatabase(t, b, fams)
	if v := value(t, fams, "outboxlab_run_resets_total"); v != 1 {
		t.Errorf("outboxlab_run_resets_total = %v after one rewind, want 1", v)
	}
	if v := value(t, fams, "outboxlab_run_start_time_seconds"); v < start {
		t.Errorf("run start %v after a rewind, before the first run's %v", v, start)
	}
	if v := value(t, fams, "outboxlab_outbox_oldest_pending_age_seconds", "pipeline", "outbox"); v > 0.001 {
		t.Errorf("oldest pending age %v s before the clock moved 10s", v)
	}
}

// checkAgainstDatabase compares the scrape with what each pipeline's
// database holds. Where the database keeps no trace of an event (a publish,
// a delivery, a duplicate), the expectation is derived from the rows with
// what the scenario allows: no broker duplicates or ACK timeouts, so every
// publish the broker accepted reached each consumer once and was handled.
func checkAgainstDatabase(t *testing.T, b *bundle, fams map[string]*dto.MetricFamily) {
	t.Helper()
	now := b.se.Sim().Now()
	for _, pipe := range []string{"outbox", "naive"} {
		url := b.url(pipe)
		db := func(q string, args ...any) float64 { return pgtest.Query[float64](t, url, q, args...) }
		got := func(name string, labels ...string) float64 {
			return value(t, fams, name, append([]string{"pipeline", pipe}, labels...)...)
		}
		check := func(what string, got, want float64) {
			t.Helper()
			if math.Abs(got-want) > 1e-6 {
				t.Errorf("%s %s = %v, the database says %v", pipe, what, got, want)
			}
		}
		check("pending messages", got("outboxlab_outbox_pending_messages"),
			db(`SELECT count(*) FROM outbox_messages WHERE published_at IS NULL AND dead_lettered_at IS NULL`))
		check("oldest pending age", got("outboxlab_outbox_oldest_pending_age_seconds"),
			db(`SELECT coalesce(extract(epoch FROM $1::timestamptz - min(occurred_at)), 0)::float8 FROM outbox_messages
			    WHERE published_at IS NULL AND dead_lettered_at IS NULL`, now))
		deadLettered := db(`SELECT count(*) FROM outbox_messages WHERE dead_lettered_at IS NOT NULL`)
		check("dead-lettered messages", got("outboxlab_outbox_dead_lettered_messages"), deadLettered)
		check("dead letters (no requeue: every one is still there)", got("outboxlab_outbox_dead_letters_total"), deadLettered)
		check("publish attempts (each claim adds one attempt)", got("outboxlab_outbox_publish_attempts_total"),
			db(`SELECT coalesce(sum(attempts), 0) FROM outbox_messages`))
		check("published messages", got("outboxlab_outbox_published_messages_total"),
			db(`SELECT count(*) FROM outbox_messages WHERE published_at IS NOT NULL`))
		check("attempts per published message", got("outboxlab_outbox_attempts_per_published_message"),
			db(`SELECT coalesce(avg(attempts), 0)::float8 FROM outbox_messages WHERE published_at IS NOT NULL`))
		inboxRows := db(`SELECT count(*) FROM inbox_messages`)
		check("published→processed samples (one per first processing)", got("outboxlab_published_to_processed_seconds"), inboxRows)

		// Publishes: a relay's claim of a row that ends published was accepted
		// by the broker (the crash came after the publish, the poison row
		// never published); the naive write publishes each payment once, and
		// its consumers heard of exactly what it published.
		publishes := db(`SELECT coalesce(sum(attempts), 0) FROM outbox_messages WHERE published_at IS NOT NULL`)
		if pipe == "naive" {
			publishes = db(`SELECT count(*) FROM inbox_messages WHERE consumer_name = 'accounting'`)
		}
		check("publishes", got("outboxlab_publishes_total"), publishes)
		if pipe == "outbox" {
			// One sample per row marked, taken at its mark: the time the
			// table shows between the event and its published_at.
			check("occurred→published samples (one per row marked)", got("outboxlab_occurred_to_published_seconds"),
				db(`SELECT count(*) FROM outbox_messages WHERE published_at IS NOT NULL`))
			check("occurred→published sum", metric(t, fams, "outboxlab_occurred_to_published_seconds", "pipeline", pipe).GetHistogram().GetSampleSum(),
				db(`SELECT coalesce(sum(extract(epoch FROM published_at - occurred_at)), 0)::float8 FROM outbox_messages WHERE published_at IS NOT NULL`))
			check("expired leases recovered (the lease witness's takeovers)", got("outboxlab_outbox_expired_leases_recovered_total"),
				db(`SELECT count(*) FROM outboxlab_lease_claims WHERE prev_lock_id IS NOT NULL`))
		}
		var duplicates float64
		for _, c := range []string{"accounting", "notifications"} {
			inbox := db(`SELECT count(*) FROM inbox_messages WHERE consumer_name = $1`, c)
			check(c+" inbox messages", got("outboxlab_inbox_messages", "consumer", c), inbox)
			effects := db(`SELECT (SELECT count(*) FROM ledger_entries WHERE consumer_name = $1) + (SELECT count(*) FROM notifications WHERE consumer_name = $1)`, c)
			check(c+" effects", got("outboxlab_consumer_effects", "consumer", c), effects)
			// Each publish reached the consumer once; all but the first of
			// each message were duplicates its inbox ignored.
			check(c+" inbox duplicates ignored", got("outboxlab_inbox_duplicates_ignored_total", "consumer", c), publishes-inbox)
			duplicates += publishes - inbox
		}
		check("deliveries", got("outboxlab_deliveries_total"), 2*publishes)
		if pipe == "outbox" && duplicates != 2 {
			t.Errorf("the scenario made %v duplicates in the outbox pipeline, want 2 (one per consumer): the checks above were of zeros", duplicates)
		}
		checkHistogram(t, pipe, metric(t, fams, "outboxlab_occurred_to_published_seconds", "pipeline", pipe))
		checkHistogram(t, pipe, metric(t, fams, "outboxlab_published_to_processed_seconds", "pipeline", pipe))
	}
}

// checkHistogram: the engine's buckets in seconds, cumulative, then +Inf
// holding every sample.
func checkHistogram(t *testing.T, pipe string, m *dto.Metric) {
	t.Helper()
	h := m.GetHistogram()
	bs := h.GetBucket()
	if len(bs) != len(engine.LatencyBuckets)+1 {
		t.Fatalf("%s: %d buckets, want %d and +Inf", pipe, len(bs), len(engine.LatencyBuckets))
	}
	for i, bk := range bs {
		want := math.Inf(1)
		if i < len(engine.LatencyBuckets) {
			want = engine.LatencyBuckets[i].Seconds()
		}
		if bk.GetUpperBound() != want {
			t.Errorf("%s: bucket %d le=%v, want %v", pipe, i, bk.GetUpperBound(), want)
		}
		if i > 0 && bk.GetCumulativeCount() < bs[i-1].GetCumulativeCount() {
			t.Errorf("%s: bucket le=%v below the one before", pipe, bk.GetUpperBound())
		}
	}
	if inf := bs[len(bs)-1].GetCumulativeCount(); inf != h.GetSampleCount() {
		t.Errorf("%s: +Inf bucket %d, count %d", pipe, inf, h.GetSampleCount())
	}
	if h.GetSampleSum() < 0 {
		t.Errorf("%s: sum %v", pipe, h.GetSampleSum())
	}
}

// Without a simulation (booting, between scenes) the endpoint answers, says
// outboxlab_up 0 and nothing it cannot read.
func TestNoSimulation(t *testing.T) {
	t.Parallel()
	col := telemetry.NewCollector(telemetry.Config{Sim: func() telemetry.Simulation { return nil }})
	b := &bundle{col: col, srv: httptest.NewServer(telemetry.Handler(col))}
	t.Cleanup(b.srv.Close)
	fams := b.scrape(t)
	if v := value(t, fams, "outboxlab_up"); v != 0 {
		t.Errorf("outboxlab_up = %v without a simulation", v)
	}
	if _, ok := fams["outboxlab_outbox_pending_messages"]; ok {
		t.Errorf("figures without a simulation")
	}
}

// A pedantic registry finds every metric described and consistent, and each
// counter carries the run's start as its created timestamp; another
// simulation (the screen's next scene) starts a run.
func TestCountersCarryTheRunStart(t *testing.T) {
	t.Parallel()
	first := setup(t, "title: a\nteaches: b\nmode: outbox\n\nrequest amount=1 client=acme\ndrain\nexpect outbox published == 1\n")
	second := setup(t, "title: a\nteaches: b\nmode: outbox\n\nadvance 1s\nexpect outbox published == 0\n")
	current := first.se.Sim()
	wall := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	col := telemetry.NewCollector(telemetry.Config{
		Sim:  func() telemetry.Simulation { return simhttp.Figures(current) },
		Now:  func() time.Time { return wall },
		Wait: freshRead,
	})
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(col)
	gather := func() map[string]*dto.MetricFamily {
		t.Helper()
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatalf("pedantic gather: %v", err)
		}
		out := map[string]*dto.MetricFamily{}
		for _, mf := range mfs {
			out[mf.GetName()] = mf
		}
		return out
	}
	fams := gather()
	if v := value(t, fams, "outboxlab_publishes_total", "pipeline", "outbox"); v != 1 {
		t.Errorf("publishes %v, want 1", v)
	}
	if _, ok := fams["outboxlab_inbox_messages"]; ok {
		t.Errorf("per-consumer figures without DatabaseURL")
	}
	for _, name := range []string{"outboxlab_publishes_total", "outboxlab_outbox_dead_letters_total"} {
		if ct := metric(t, fams, name, "pipeline", "outbox").GetCounter().GetCreatedTimestamp().AsTime(); !ct.Equal(wall) {
			t.Errorf("%s created %v, want the run's start %v", name, ct, wall)
		}
	}
	if ct := metric(t, fams, "outboxlab_occurred_to_published_seconds", "pipeline", "outbox").GetHistogram().GetCreatedTimestamp().AsTime(); !ct.Equal(wall) {
		t.Errorf("histogram created %v, want %v", ct, wall)
	}
	if v := value(t, fams, "outboxlab_run_start_time_seconds"); v != float64(wall.Unix()) {
		t.Errorf("run start %v, want %v", v, wall.Unix())
	}

	current, wall = second.se.Sim(), wall.Add(time.Minute)
	fams = gather()
	if v := value(t, fams, "outboxlab_run_resets_total"); v != 1 {
		t.Errorf("resets %v after another simulation, want 1", v)
	}
	if v := value(t, fams, "outboxlab_publishes_total", "pipeline", "outbox"); v != 0 {
		t.Errorf("publishes %v in a new run, want 0", v)
	}
	if ct := metric(t, fams, "outboxlab_publishes_total", "pipeline", "outbox").GetCounter().GetCreatedTimestamp().AsTime(); !ct.Equal(wall) {
		t.Errorf("created %v in the new run, want %v", ct, wall)
	}
	wall = wall.Add(time.Minute)
	if v := value(t, gather(), "outboxlab_run_start_time_seconds"); v != float64(wall.Add(-time.Minute).Unix()) {
		t.Errorf("a scrape with nothing reset moved the run's start to %v", v)
	}
}

// A database it cannot read (PostgreSQL down) makes the scrape say
// outboxlab_up 0 with no figures, and OnError hears why.
func TestUnreadableDatabase(t *testing.T) {
	t.Parallel()
	b := setup(t, "title: a\nteaches: b\nmode: outbox\n\nrequest amount=1 client=acme\nexpect outbox payments == 0\n")
	b.col = telemetry.NewCollector(telemetry.Config{
		Sim:         func() telemetry.Simulation { return simhttp.Figures(b.se.Sim()) },
		Wait:        freshRead,
		DatabaseURL: func(string) string { return "postgres://outboxlab@127.0.0.1:1/nothing?connect_timeout=2" },
		OnError: func(err error) {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.errors = append(b.errors, err)
		},
	})
	srv := httptest.NewServer(telemetry.Handler(b.col))
	t.Cleanup(srv.Close)
	b.srv = srv
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if v := value(t, fams, "outboxlab_up"); v != 0 {
		t.Errorf("outboxlab_up = %v with the database unreadable", v)
	}
	if _, ok := fams["outboxlab_outbox_pending_messages"]; ok {
		t.Errorf("figures from a scrape that failed:\n%s", body)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.errors) != 1 || !strings.Contains(b.errors[0].Error(), "outbox database") {
		t.Errorf("OnError heard %v, want the outbox database's failure", b.errors)
	}
}
