package deploy

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/jetstream"
	"github.com/outboxlab/outboxlab/engine/jetstream/jstest"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/pg/pgtest"
)

// logBuffer is a deployment's log, kept for a test to read.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// lines are the log's lines that hold s.
func (l *logBuffer) lines(s string) []string {
	var out []string
	for line := range strings.Lines(l.String()) {
		if strings.Contains(line, s) {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}

// A NATS server at a URL stopped for real, 150 payments posted meanwhile,
// then started again on its port and store: the rows go at the broker's
// pace, not the backoff's. The relay that found the broker gone handed
// its rows back and waited; none of the 150 was given an attempt or a
// retry time by the outage, and all of them are published within 2 s of
// the server's return, then applied once by each consumer. The log says
// the broker was lost and came back, a line each, none per message.
// An outage counted as each message's failure would leave every row waiting
// out its backoff (2 s, 4 s, … up to 300 s) after the broker was back.
func TestBrokerBackPublishesThePendingRowsAtOnce(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	_, db := pgtest.DB(t)
	url := pgtest.Server(t).DatabaseURL(db)
	nats := jetstream.ServerOnPort(t.TempDir(), jstest.FreePort(t)) // a broker at a URL
	t.Cleanup(nats.Stop)
	if err := nats.Start(); err != nil {
		t.Fatal(err)
	}
	j, err := OpenJetStream(ctx, BrokerChoice{Kind: BrokerNATSURL, URL: nats.URL()}, "",
		jetstream.Config{Pipeline: "outage", AckWait: 2 * time.Second, Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(j.Close)
	var log logBuffer
	d, err := Launch(ctx, Options{DatabaseURL: url, Broker: j.Broker, Workers: 2,
		Relay:  engine.RelayConfig{PollInterval: 100 * time.Millisecond, Lease: 2 * time.Second},
		Logger: slog.New(slog.NewTextHandler(&log, nil)), OnError: testrun.BackgroundErrors(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); d.Wait() })
	pending := func() int64 {
		return pgtest.Query[int64](t, url, "SELECT count(*) FROM outbox_messages WHERE published_at IS NULL AND dead_lettered_at IS NULL")
	}
	for range 5 {
		if _, err := d.PostPayment(ctx, 100); err != nil {
			t.Fatal(err)
		}
	}
	testrun.Eventually(t, 20*time.Second, "the first 5 published", func() bool { return pending() == 0 })

	nats.Stop()
	const waiting = 150
	for i := range waiting {
		if _, err := d.PostPayment(ctx, int64(200+i)); err != nil {
			t.Fatalf("payment %d with the broker down: %v", i, err)
		}
	}
	// Long enough that a row failed at the outage's start would have come
	// to its retry (2 s) and failed again: an outage, not a blip.
	testrun.Eventually(t, 20*time.Second, "the broker seen down and the oldest row 3 s old", func() bool {
		s, err := d.Snapshot(ctx)
		return err == nil && !d.Broker().Up && s.OldestPendingAge >= 3*time.Second
	})
	if n := pending(); n != waiting {
		t.Fatalf("%d rows pending with the broker down, want %d", n, waiting)
	}
	if err := nats.Start(); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	testrun.Eventually(t, 20*time.Second, "every waiting row published", func() bool { return pending() == 0 })
	took := time.Since(back)
	t.Logf("%d rows waiting: the outbox empty %s after the broker's return", waiting, took.Round(time.Millisecond))
	if took > 2*time.Second {
		t.Errorf("the outbox took %s to empty after the broker's return, want 2s at most", took.Round(time.Millisecond))
	}
	if n := pgtest.Query[int64](t, url, "SELECT count(*) FROM outbox_messages WHERE attempts > 1 OR last_error IS NOT NULL"); n != 0 {
		t.Errorf("%d rows kept an attempt or an error from the outage", n)
	}
	total := int64(5 + waiting)
	testrun.Eventually(t, 30*time.Second, "every payment applied by both consumers", func() bool {
		return pgtest.Query[int64](t, url, "SELECT count(*) FROM inbox_messages") == 2*total
	})
	for what, sql := range map[string]string{
		"ledger entries":    "SELECT count(*) FROM ledger_entries",
		"ledger payments":   "SELECT count(DISTINCT payment_id) FROM ledger_entries",
		"notifications":     "SELECT count(*) FROM notifications",
		"notified payments": "SELECT count(DISTINCT payment_id) FROM notifications",
		"payments":          "SELECT count(*) FROM payments",
		"outbox rows":       "SELECT count(*) FROM outbox_messages WHERE published_at IS NOT NULL",
	} {
		if n := pgtest.Query[int64](t, url, sql); n != total {
			t.Errorf("%s: %d, want %d", what, n, total)
		}
	}
	lost, backs := log.lines("broker lost"), log.lines("broker back")
	if len(lost) != 1 || len(backs) != 1 {
		t.Errorf("the outage logged %d 'broker lost' and %d 'broker back' lines, want one each:\n%s", len(lost), len(backs), log.String())
	}
	t.Logf("the outage's log:\n%s", log.String())
}
