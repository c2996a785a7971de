package deploy

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/jetstream"
	"github.com/outboxlab/outboxlab/engine/jetstream/jstest"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/pg/pgtest"
)

// On a real 3-node JetStream cluster (three nats-servers in this process,
// routed on loopback), the deployment's stream is replicated on all three;
// the server that leads it is killed while payments are being posted
// (2000 at about 250 a second), and it is the server the client is
// connected to (the leadership moved there first). A new leader is elected, the client
// reconnects to a server of the URL list, and from the database: every
// payment published once (no outbox row left pending or dead), applied
// once by each consumer (inbox rows and effects equal the payments, no
// message twice), the stream stored each event once and holds nothing
// owed at the end. The deployment's log says the leader changed, naming
// the killed one, in a line per change, not one per message. The outage,
// as the relays saw it (the longest gap between two marks) and as the
// consumers saw it, is logged.
//
// It runs on two clusters: nats-server as the library this module links,
// in this process, and Debian's nats-server binary (2.9.10), three
// processes, the leader stopped by SIGTERM.
func TestClusterLeaderKilledMidLoadLosesNothing(t *testing.T) {
	// Beside the package's other tests: its waits are for the load's pace
	// and an election, each bounded by a minute or more, not a moment.
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a 3-node NATS cluster and posts 2000 payments")
	}
	t.Run("library", func(t *testing.T) {
		t.Parallel()
		leaderKilledMidLoad(t, jstest.StartCluster(t, 3))
	})
	t.Run("nats-server binary", func(t *testing.T) {
		t.Parallel()
		c := jstest.StartExternalCluster(t, 3)
		t.Logf("%s", c.Version)
		leaderKilledMidLoad(t, c)
	})
}

// cluster is a NATS cluster whose servers a test can kill by name.
type cluster interface {
	URL() string
	Kill(name string) error
}

func leaderKilledMidLoad(t *testing.T, c cluster) {
	const payments = 2000
	pool, db := pgtest.DB(t)
	url := pgtest.Server(t).DatabaseURL(db)
	ctx := context.Background()
	// The stream as serve --broker and live keep it (PurgeAcked: limits
	// retention, the broker purging what both consumers acked). On
	// nats-server 2.9.10 an interest-retention stream lost messages at the
	// leader's kill: removed as acked by both, applied by one.
	j, err := OpenJetStream(ctx, BrokerChoice{Kind: BrokerNATSURL, URL: c.URL()}, "", jetstream.Config{Pipeline: "cluster", AckWait: 5 * time.Second, PurgeAcked: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(j.Close)
	st := j.Broker.Settings()
	if st.Replicas != 3 || len(st.Peers) != 2 {
		t.Fatalf("stream on a 3-node cluster: %+v, want 3 replicas", st)
	}
	// The harder case: the server that leads the stream is the one the
	// client is connected to, so its death is a reconnect too. The leader
	// steps down with the client's server preferred; nats-server 2.9 has
	// no preference on a step-down and picks one of the others: it steps
	// down again until the client's leads.
	client := j.Conn.ConnectedServerName()
	for try := 1; st.Leader != client; try++ {
		if try > 10 {
			t.Fatalf("the stream's leader did not move to %s in 10 step-downs", client)
		}
		var req []byte
		if v := j.Conn.ConnectedServerVersion(); !strings.HasPrefix(v, "2.9.") && !strings.HasPrefix(v, "2.10.") {
			req = fmt.Appendf(nil, `{"placement":{"preferred":%q}}`, client) // 2.9 refuses a body it does not know
		}
		if _, err := j.Conn.Request("$JS.API.STREAM.LEADER.STEPDOWN."+st.Name, req, 5*time.Second); err != nil {
			t.Fatal(err)
		}
		testrun.Eventually(t, 20*time.Second, "the stream's leader "+st.Leader+" stepped down", func() bool {
			s, err := j.Broker.StreamInfo(ctx)
			if err == nil && s.Leader != "" && s.Leader != st.Leader {
				st = s
				return true
			}
			return false
		})
	}
	t.Logf("stream %s: replicas %d, leader %s, peers %v; client at %s", st.Name, st.Replicas, st.Leader, st.Peers, j.Conn.ConnectedServerName())

	runCtx, cancel := context.WithCancel(ctx)
	var log logBuffer
	d, err := Launch(runCtx, Options{DatabaseURL: url, Broker: j.Broker, Relays: 2, Workers: 2,
		Logger:  slog.New(slog.NewTextHandler(&log, nil)),
		Relay:   engine.RelayConfig{PollInterval: 100 * time.Millisecond},
		OnError: testrun.BackgroundErrors(t)})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); d.Wait() })
	t.Cleanup(func() { t.Logf("the deployment's log:\n%s", log.String()) })

	count := func(sql string) int64 {
		t.Helper()
		var n int64
		if err := pool.QueryRow(ctx, sql).Scan(&n); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return n
	}
	// The load: four writers, one payment every 16 ms each.
	var posted atomic.Int64
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			tick := time.NewTicker(16 * time.Millisecond)
			defer tick.Stop()
			for range tick.C {
				if posted.Add(1) > payments {
					return
				}
				if _, err := d.PostPayment(ctx, int64(100+w)); err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
			}
		})
	}
	// Mid-load: a third of them published, the stream's leader goes.
	testrun.Eventually(t, 60*time.Second, "a third published", func() bool {
		return count("SELECT count(*) FROM outbox_messages WHERE published_at IS NOT NULL") >= payments/3
	})
	info, err := j.Broker.StreamInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	killedAt := time.Now()
	if err := c.Kill(info.Leader); err != nil {
		t.Fatal(err)
	}
	var leader string
	testrun.Eventually(t, 60*time.Second, "a new stream leader after the old one was killed", func() bool {
		if s, err := j.Broker.StreamInfo(ctx); err == nil && s.Leader != "" && s.Leader != info.Leader {
			leader = s.Leader
		}
		return leader != ""
	})
	elected := time.Since(killedAt)
	// The log says the change, a line per change of state: changed from
	// the killed one, or lost and then elected when a poll fell between.
	waitLog(t, &log, `msg="stream leader `, " leader="+leader)
	if said := log.lines(`msg="stream leader `); !strings.Contains(strings.Join(said, "\n"), "was="+info.Leader) || len(said) > 3 {
		t.Errorf("the log's leader lines do not name %s as the one before, or there are more than 3:\n%s", info.Leader, log.String())
	}
	wg.Wait()
	carried := false
	defer func() {
		if !carried {
			in, err := j.Broker.Info(ctx)
			t.Logf("the stream: %+v (%v)", in, err)
		}
	}()
	testrun.Awaited(t, 120*time.Second, fmt.Sprintf("all %d carried after the load (published, accounting, notifications)", payments), func() [3]int64 {
		return [3]int64{count("SELECT count(*) FROM outbox_messages WHERE published_at IS NOT NULL"),
			count("SELECT count(*) FROM inbox_messages WHERE consumer_name = 'accounting'"),
			count("SELECT count(*) FROM inbox_messages WHERE consumer_name = 'notifications'")}
	}, func(n [3]int64) bool { return n == [3]int64{payments, payments, payments} })
	carried = true
	drained := time.Since(killedAt)

	// Once both consumers acked everything, the stream holds nothing owed
	// (the broker purges it). An ack lost in the failover is a delivery the
	// consumer applied and JetStream still holds: it comes again after
	// AckWait (5 s) and the inbox recognises it.
	t.Run("the stream empties", func(t *testing.T) { // a failure here leaves the counts below to be checked
		testrun.Awaited(t, 30*time.Second, "the stream empty after all were applied", func() string {
			in, err := j.Broker.Info(ctx)
			if err != nil {
				return err.Error()
			}
			return fmt.Sprintf("%d messages", in.Messages)
		}, func(s string) bool { return s == "0 messages" })
	})
	for sql, want := range map[string]int64{
		"SELECT count(*) FROM payments":        payments,
		"SELECT count(*) FROM outbox_messages": payments,
		"SELECT count(*) FROM outbox_messages WHERE published_at IS NULL OR dead_lettered_at IS NOT NULL": 0,
		"SELECT count(*) FROM ledger_entries":                   payments,
		"SELECT count(DISTINCT message_id) FROM ledger_entries": payments,
		"SELECT count(*) FROM notifications":                    payments,
		"SELECT count(DISTINCT message_id) FROM notifications":  payments,
		// Each inbox row is an outbox event: nothing applied that was not written.
		"SELECT count(*) FROM inbox_messages i JOIN outbox_messages o ON o.id = i.message_id": 2 * payments,
	} {
		if got := count(sql); got != want {
			t.Errorf("%s = %d, want %d", sql, got, want)
		}
	}
	stats := j.Broker.Stats()
	// The stream's last sequence counts every message it ever stored (the
	// dedup window's duplicates are not stored): one per payment, or an
	// event was stored twice. Asked of the cluster, not of our counters.
	if in, err := j.Broker.Info(ctx); err != nil {
		t.Error(err)
	} else if in.LastSeq != uint64(payments) {
		t.Errorf("the stream stored %d messages for %d payments", in.LastSeq, payments)
	}
	var pubGap, appliedGap float64
	if err := pool.QueryRow(ctx, `SELECT
		(SELECT coalesce(extract(epoch FROM max(gap)), 0) FROM (SELECT published_at - lag(published_at) OVER (ORDER BY published_at) AS gap FROM outbox_messages) g),
		(SELECT coalesce(extract(epoch FROM max(gap)), 0) FROM (SELECT processed_at - lag(processed_at) OVER (ORDER BY processed_at) AS gap FROM inbox_messages WHERE consumer_name = 'accounting') g)`).
		Scan(&pubGap, &appliedGap); err != nil {
		t.Fatal(err)
	}
	t.Logf("killed leader %s; new leader %s elected in %s; client now at %s", info.Leader, leader, elected.Round(time.Millisecond), j.Conn.ConnectedServerName())
	t.Logf("outage: publishing stalled %.2fs at most (longest gap between two marks), accounting's applies %.2fs; all %d carried %s after the kill",
		pubGap, appliedGap, payments, drained.Round(time.Millisecond))
	dups := d.Counters().DuplicatesIgnoredBy()
	t.Logf("redeliveries the inbox recognised: accounting %d, notifications %d", dups["accounting"], dups["notifications"])
	t.Logf("counts: payments %d, published %d, ledger %d, notifications %d; broker stored %d, acked as duplicates %d, redelivered %d; retried rows %d",
		count("SELECT count(*) FROM payments"), count("SELECT count(*) FROM outbox_messages WHERE published_at IS NOT NULL"),
		count("SELECT count(*) FROM ledger_entries"), count("SELECT count(*) FROM notifications"),
		stats.Published, stats.Duplicates, stats.Redelivered, count("SELECT count(*) FROM outbox_messages WHERE attempts > 1"))
}
