package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
)

// BenchmarkCreatePayment measures POST /payments with an Idempotency-Key
// over a real listener against engine.Writer.CreatePayment called directly
// with a key, in the same run on the same database: what the HTTP edge (the
// loopback round trip, decoding, the problem checks, the writer hand-off)
// costs on top of the writer. It reports each side's requests/s and p99,
// and http/writer, the ratio of the two throughputs.
//
// The server is booted like engine's benchmarks' (performance.md's settings:
// fsync on, shared_buffers 256MB), so every COMMIT waits for its WAL flush
// as in production; the pgtest server's fsync off would make the writer
// cheaper than any real one and so the edge's share larger than it is.
//
// serial: one request at a time, each iteration one direct call and one
// POST, alternated, so both sides meet the same table sizes and machine.
// clients=4: four writers against four HTTP clients (a DBBackend with four
// writers), in alternating rounds of 200 operations per side.
func BenchmarkCreatePayment(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := pg.Boot(ctx, pg.Options{DataDir: pgtest.DataDir(b), Settings: map[string]string{"shared_buffers": "256MB"}})
	if err != nil {
		b.Fatalf("boot benchmark PostgreSQL: %v", err)
	}
	b.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			b.Logf("stop benchmark PostgreSQL: %v", err)
		}
	})
	for _, clients := range []int{1, 4} {
		name := "serial"
		if clients > 1 {
			name = fmt.Sprintf("clients=%d", clients)
		}
		b.Run(name, func(b *testing.B) {
			a := newBenchAPI(b, srv, clients)
			var writer, http []time.Duration
			var writerTime, httpTime time.Duration
			b.ResetTimer()
			if clients == 1 {
				for i := range b.N {
					writer = append(writer, a.direct(b, 0, i))
					http = append(http, a.post(b, i))
				}
				writerTime, httpTime = sum(writer), sum(http)
			} else {
				const round = 200
				for done := 0; done < b.N; done += round {
					n := min(round, b.N-done)
					d, lat := a.parallel(b, n, func(w, i int) time.Duration { return a.direct(b, w, done+i) })
					writerTime, writer = writerTime+d, append(writer, lat...)
					d, lat = a.parallel(b, n, func(_, i int) time.Duration { return a.post(b, done+i) })
					httpTime, http = httpTime+d, append(http, lat...)
				}
			}
			b.StopTimer()
			writerRate, httpRate := float64(b.N)/writerTime.Seconds(), float64(b.N)/httpTime.Seconds()
			b.ReportMetric(writerRate, "writer-req/s")
			b.ReportMetric(httpRate, "http-req/s")
			b.ReportMetric(p99(writer), "writer-p99-ms")
			b.ReportMetric(p99(http), "http-p99-ms")
			b.ReportMetric(httpRate/writerRate, "http/writer")
		})
	}
}

// benchAPI is one database with the API over it and writers to call directly.
type benchAPI struct {
	base    string
	client  *http.Client
	writers []*engine.Writer
	run     string // keeps keys unique across b.N rounds on one database
}

var benchRuns atomic.Int64

func newBenchAPI(b *testing.B, srv *pg.Server, clients int) *benchAPI {
	b.Helper()
	ctx := context.Background()
	name := fmt.Sprintf("bench_%d", benchRuns.Add(1))
	if err := srv.CreateDatabase(ctx, name); err != nil {
		b.Fatal(err)
	}
	pool, err := srv.Pool(ctx, name)
	if err != nil {
		b.Fatal(err)
	}
	backend := NewDBBackend(pool, DBConfig{Writers: clients})
	api := httptest.NewServer(NewHandler(backend))
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	a := &benchAPI{base: api.URL, client: client, run: name}
	for range clients {
		a.writers = append(a.writers, engine.NewWriter(engine.WriterConfig{Connect: engine.ConnectURL(srv.DatabaseURL(name))}))
	}
	b.Cleanup(func() {
		client.CloseIdleConnections()
		api.Close()
		_ = backend.Close(ctx)
		for _, w := range a.writers {
			_ = w.Close(ctx)
		}
		pool.Close()
		if err := srv.DropDatabase(ctx, name); err != nil {
			b.Logf("drop benchmark database: %v", err)
		}
	})
	// One request each way first: connections dialled, statements prepared.
	a.direct(b, 0, -1)
	a.post(b, -1)
	return a
}

var benchBody = []byte(`{"client_id": "bench", "amount_cents": 1250, "currency": "EUR"}`)

// direct is one CreatePayment on writer w, with its own key.
func (a *benchAPI) direct(b *testing.B, w, i int) time.Duration {
	req := engine.PaymentRequest{ClientID: "bench", AmountCents: 1250, Currency: "EUR",
		IdempotencyKey: fmt.Sprintf("%s-w-%d", a.run, i)}
	start := time.Now()
	if _, err := a.writers[w].CreatePayment(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// post is one POST /payments with its own key, its body read to the end.
func (a *benchAPI) post(b *testing.B, i int) time.Duration {
	req, err := http.NewRequest(http.MethodPost, a.base+"/payments", bytes.NewReader(benchBody))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Idempotency-Key", fmt.Sprintf("%s-h-%d", a.run, i))
	start := time.Now()
	resp, err := a.client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	d := time.Since(start)
	if resp.StatusCode != http.StatusCreated {
		b.Fatalf("status %d", resp.StatusCode)
	}
	return d
}

// parallel runs n operations over len(a.writers) goroutines (op gets the
// goroutine's index and the operation's) and returns the wall time and each
// operation's latency.
func (a *benchAPI) parallel(b *testing.B, n int, op func(w, i int) time.Duration) (time.Duration, []time.Duration) {
	lat := make([]time.Duration, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for w := range a.writers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				lat[i] = op(w, i)
			}
		})
	}
	wg.Wait()
	return time.Since(start), lat
}

func sum(ds []time.Duration) time.Duration {
	var t time.Duration
	for _, d := range ds {
		t += d
	}
	return t
}

// p99 in milliseconds.
func p99(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[(len(s)-1)*99/100].Microseconds()) / 1000
}
