package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

// Benchmarks run on the pgtest server (fsync off); compare each figure with
// BenchmarkInsertCommit, the plain single-row INSERT+COMMIT measured in the
// same run on the same server.

// preload writes n pending outbox rows in transactions of 1000.
func (b *bundle) preload(tb testing.TB, n int) {
	tb.Helper()
	w := NewWriter(WriterConfig{Connect: b.connect})
	defer w.Close(context.Background())
	for done := 0; done < n; {
		k := min(1000, n-done)
		reqs := make([]PaymentRequest, k)
		for i := range reqs {
			reqs[i] = payment("bench")
		}
		if _, err := w.CreatePayments(context.Background(), reqs); err != nil {
			tb.Fatal(err)
		}
		done += k
	}
	// Fresh statistics, as autovacuum would have after a real backlog built up.
	if _, err := b.pool.Exec(context.Background(), "VACUUM ANALYZE outbox_messages"); err != nil {
		tb.Fatal(err)
	}
}

func perSecond(b *testing.B, n int, d time.Duration) {
	b.ReportMetric(float64(n)/d.Seconds(), "msgs/s")
}

// BenchmarkInsertCommit is the reference: one row, one transaction, one client.
func BenchmarkInsertCommit(b *testing.B) {
	bd := setup(b)
	conn := bd.conn(b)
	ctx := context.Background()
	now := time.Now().UTC()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if _, err := conn.Exec(ctx, stmtInsertPayment.SQL, uuid.New(), "bench", 100, "EUR", nil, now); err != nil {
			b.Fatal(err)
		}
	}
	perSecond(b, b.N, time.Since(start))
}

// BenchmarkRelay drains b.N pre-loaded rows with two pipelined relays
// (claim → publish → mark, marks riding with the next claim).
func BenchmarkRelay(b *testing.B) {
	for _, batch := range []int{1, 25, 100, 500} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			bd := setup(b)
			bd.preload(b, b.N)
			ctx := context.Background()
			relays := make([]*Relay, 2)
			for i := range relays {
				relays[i] = NewRelay(RelayConfig{Name: fmt.Sprintf("relay-%d", i+1), Connect: bd.connect, Publisher: bd.broker,
					BatchSize: batch, Pipeline: true, Counters: bd.counters})
				defer relays[i].Close(ctx)
				if _, err := relays[i].conn(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			for _, r := range relays {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						res, err := r.Step(ctx)
						if err != nil {
							b.Error(err)
							return
						}
						if res.Idle {
							return
						}
					}
				}()
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			if got := bd.counters.Marked.Load(); got != int64(b.N) {
				b.Fatalf("marked %d of %d", got, b.N)
			}
			perSecond(b, b.N, elapsed)
		})
	}
}

// BenchmarkEndToEnd: batched producers insert b.N payments while two relays
// (Run, LISTEN/NOTIFY) publish and inbox consumers apply them; the clock
// stops when the last ledger entry has committed.
func BenchmarkEndToEnd(b *testing.B) {
	bd := setup(b)
	if err := bd.broker.Subscribe(TopicPayments, "bench"); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for i := range 2 {
		r := NewRelay(RelayConfig{Name: fmt.Sprintf("relay-%d", i+1), Connect: bd.connect, Publisher: bd.broker,
			BatchSize: 500, Pipeline: true, PollInterval: 50 * time.Millisecond, Counters: bd.counters})
		wg.Add(1)
		go func() { defer wg.Done(); _ = r.Run(ctx); _ = r.Close(context.Background()) }()
	}
	for range 2 {
		c := NewConsumer(ConsumerConfig{Name: "accounting", Subscription: "bench", Connect: bd.connect, Subscriber: bd.broker,
			Counters: bd.counters, PollInterval: 10 * time.Millisecond, BatchSize: 500})
		wg.Add(1)
		go func() { defer wg.Done(); _ = c.Run(ctx); _ = c.Close(context.Background()) }()
	}
	const producers, perTx = 2, 500
	b.ResetTimer()
	start := time.Now()
	var pwg sync.WaitGroup
	for p := range producers {
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			w := NewWriter(WriterConfig{Connect: bd.connect})
			defer w.Close(context.Background())
			share := b.N / producers
			if p == 0 {
				share += b.N % producers
			}
			for done := 0; done < share; {
				k := min(perTx, share-done)
				reqs := make([]PaymentRequest, k)
				for i := range reqs {
					reqs[i] = payment("bench")
				}
				if _, err := w.CreatePayments(ctx, reqs); err != nil {
					b.Error(err)
					return
				}
				done += k
			}
		}()
	}
	pwg.Wait()
	deadline := time.Now().Add(2 * time.Minute)
	for bd.counters.Processed.Load() < int64(b.N) {
		if time.Now().After(deadline) {
			b.Fatalf("processed %d of %d in 2 minutes", bd.counters.Processed.Load(), b.N)
		}
		time.Sleep(time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	cancel()
	wg.Wait()
	perSecond(b, b.N, elapsed)
}

// timingPublisher stamps each publish for the latency benchmark.
type timingPublisher struct {
	inner Publisher
	seen  chan uuid.UUID
}

func (p timingPublisher) Publish(ctx context.Context, m Message) error {
	err := p.inner.Publish(ctx, m)
	if err == nil {
		p.seen <- m.ID
	}
	return err
}

// BenchmarkCommitToPublish measures from a writer's COMMIT returning to the
// relay's publish being accepted, one payment at a time.
func BenchmarkCommitToPublish(b *testing.B) {
	for _, mode := range []struct {
		name   string
		listen bool
		poll   time.Duration
	}{{"notify", true, time.Second}, {"poll=50ms", false, 50 * time.Millisecond}} {
		b.Run(mode.name, func(b *testing.B) {
			bd := setup(b)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			pub := timingPublisher{inner: bd.broker, seen: make(chan uuid.UUID, 16)}
			r := NewRelay(RelayConfig{Name: "relay-1", Connect: bd.connect, Publisher: pub, PollInterval: mode.poll, DisableListen: !mode.listen})
			done := make(chan struct{})
			go func() { defer close(done); _ = r.Run(ctx); _ = r.Close(context.Background()) }()
			if mode.listen {
				for bd.count(b, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query = $1`, stmtListenOutbox.SQL) == 0 {
					time.Sleep(5 * time.Millisecond)
				}
			}
			w := NewWriter(WriterConfig{Connect: bd.connect})
			defer w.Close(context.Background())
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				resp, err := w.CreatePayment(ctx, payment("bench"))
				if err != nil {
					b.Fatal(err)
				}
				committed := time.Now()
				select {
				case id := <-pub.seen:
					if id != resp.EventID {
						b.Fatalf("published %s, want %s", id, resp.EventID)
					}
				case <-time.After(10 * time.Second):
					b.Fatal("not published in 10s")
				}
				lat = append(lat, time.Since(committed))
			}
			b.StopTimer()
			cancel()
			<-done
			slices.Sort(lat)
			b.ReportMetric(float64(lat[(len(lat)-1)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[(len(lat)-1)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
