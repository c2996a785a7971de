package jetstream

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/jetstream/jstest"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
)

// BenchmarkEndToEnd is engine's BenchmarkEndToEnd in the same shape (two
// producers committing payments in transactions of 500, one pipelined
// relay, two batch consumers of "accounting"), run over embedded JetStream
// and over the in-process broker in the same iteration, each on a fresh
// database of one PostgreSQL set up like engine's benchmark server
// (shared_buffers 256MB, fsync on). msgs/s is JetStream's, inprocess-msgs/s
// the in-process broker's, x-inprocess their ratio.
func BenchmarkEndToEnd(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	srv, err := pg.Boot(ctx, pg.Options{DataDir: pgtest.DataDir(b), Settings: map[string]string{"shared_buffers": "256MB"}})
	cancel()
	if err != nil {
		b.Fatalf("boot benchmark PostgreSQL: %v", err)
	}
	b.Cleanup(func() { _ = srv.Stop() })
	b.Run("producers=2x500", func(b *testing.B) {
		js := benchBroker(b, Config{})
		beside(b, srv, js)
	})
	// The same with the broker purging what every consumer acked in bulk
	// (Config.PurgeAcked) instead of interest retention's synced removal
	// per ack.
	b.Run("producers=2x500/purge-acked", func(b *testing.B) {
		js := benchBroker(b, Config{PurgeAcked: true})
		beside(b, srv, js)
	})
	// The same over a stream of three replicas on a cluster of three servers
	// in this process, each syncing every write as the embedded one does: an
	// ack then means stored on a majority, and nats-server syncs once per
	// flush of the stream's Raft log instead of once per message.
	b.Run("producers=2x500/replicas=3", func(b *testing.B) {
		cluster := jstest.StartCluster(b, 3, jstest.SyncAlways)
		nc, err := nats.Connect(cluster.URL(), nats.Name("bench"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(nc.Close)
		js, err := Open(context.Background(), nc, Config{Replicas: 3})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(js.Close)
		if err := js.Subscribe(context.Background(), engine.TopicPayments, "accounting"); err != nil {
			b.Fatal(err)
		}
		beside(b, srv, js)
	})
}

var benchRuns, benchDBs atomic.Int64

// beside runs b.N payments end to end over js and over the in-process
// broker, each on a fresh database of srv, and reports both rates and their
// ratio.
func beside(b *testing.B, srv *pg.Server, js *Broker) {
	b.Helper()
	in := engine.NewBroker(engine.BrokerConfig{AckTimeout: 30 * time.Second})
	if err := in.Subscribe(engine.TopicPayments, "accounting"); err != nil {
		b.Fatal(err)
	}
	jsURL, inURL := benchDB(b, srv), benchDB(b, srv)
	var jsTook, inTook time.Duration
	runs := []func(){
		func() { jsTook = endToEnd(b, jsURL, js, js, b.N) },
		func() { inTook = endToEnd(b, inURL, in, in, b.N) },
	}
	first := int(benchRuns.Add(1) % 2) // alternate which goes first
	b.ResetTimer()
	runs[first]()
	runs[1-first]()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/jsTook.Seconds(), "msgs/s")
	b.ReportMetric(float64(b.N)/inTook.Seconds(), "inprocess-msgs/s")
	b.ReportMetric(inTook.Seconds()/jsTook.Seconds(), "x-inprocess")
}

// benchBroker is an embedded JetStream with the "accounting" consumer, its
// store in the benchmark's temp dir.
func benchBroker(b *testing.B, cfg Config) *Broker {
	b.Helper()
	s, err := StartServer(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Stop)
	nc, err := s.Connect("bench", 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(nc.Close)
	br, err := Open(context.Background(), nc, cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(br.Close)
	if err := br.Subscribe(context.Background(), engine.TopicPayments, "accounting"); err != nil {
		b.Fatal(err)
	}
	return br
}

// benchDB is a fresh migrated database on srv, dropped when b ends.
func benchDB(b *testing.B, srv *pg.Server) string {
	b.Helper()
	name := fmt.Sprintf("bench_js_%d", benchDBs.Add(1))
	if err := srv.CreateDatabase(context.Background(), name); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.DropDatabase(context.Background(), name) })
	return srv.DatabaseURL(name)
}

// endToEnd runs n payments through the whole pipeline and returns the time
// from the producers' start to the last ledger entry's commit.
func endToEnd(b *testing.B, url string, pub engine.Publisher, sub engine.Subscriber, n int) time.Duration {
	b.Helper()
	connect := engine.ConnectURL(url)
	counters := &engine.Counters{}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	r := engine.NewRelay(engine.RelayConfig{Name: "relay-1", Connect: connect, Publisher: pub,
		BatchSize: 500, Pipeline: true, PublishBatches: true, PollInterval: 50 * time.Millisecond, Counters: counters})
	wg.Go(func() { _ = r.Run(ctx); _ = r.Close(context.Background()) })
	for range 2 {
		c := engine.NewConsumer(engine.ConsumerConfig{Name: "accounting", Connect: connect, Subscriber: sub,
			Counters: counters, PollInterval: 10 * time.Millisecond, BatchSize: 500})
		wg.Go(func() { _ = c.Run(ctx); _ = c.Close(context.Background()) })
	}
	const producers, perTx = 2, 500
	start := time.Now()
	var pwg sync.WaitGroup
	for p := range producers {
		pwg.Go(func() {
			w := engine.NewWriter(engine.WriterConfig{Connect: connect})
			defer w.Close(context.Background())
			share := n / producers
			if p == 0 {
				share += n % producers
			}
			for done := 0; done < share; {
				k := min(perTx, share-done)
				reqs := make([]engine.PaymentRequest, k)
				for i := range reqs {
					reqs[i] = engine.PaymentRequest{ClientID: "bench", AmountCents: 1250, Currency: "EUR"}
				}
				if _, err := w.CreatePayments(ctx, reqs); err != nil {
					b.Error(err)
					return
				}
				done += k
			}
		})
	}
	pwg.Wait()
	deadline := time.Now().Add(2 * time.Minute)
	for counters.Processed.Load() < int64(n) {
		if time.Now().After(deadline) {
			b.Fatalf("processed %d of %d in 2 minutes", counters.Processed.Load(), n)
		}
		time.Sleep(time.Millisecond) // the end of a measurement: asked every millisecond, so the wait adds at most that
	}
	return time.Since(start)
}
