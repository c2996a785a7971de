package engine

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// River is performance.md's end-to-end yardstick (`river bench`: burn-down
// of 200k no-op jobs ≈ 9.4k jobs/s, continuous ≈ 7.9k), measured here on the
// same server in the same run. The `river` command's module is not served by
// the module proxy these machines reach, so these rebuild it from River's
// benchmarker (cmd/river/riverbench), with its settings: one client with 2000
// workers, FetchCooldown 2 ms, FetchPollInterval 20 ms, a no-op job, jobs
// counted by completion events. riverBurnDown is its burn-down mode;
// riverEndToEnd has endToEnd's shape (jobs inserted while worked, the
// inserts timed), the like-for-like comparison.

// riverBenchArgs is the no-op job of River's benchmark.
type riverBenchArgs struct {
	Num int `json:"num"`
}

func (riverBenchArgs) Kind() string { return "benchmark" }

// riverClient migrates bd's database for River and returns a client with
// the settings of River's benchmarker and a no-op worker.
func riverClient(b *testing.B, bd *bundle) *river.Client[pgx.Tx] {
	b.Helper()
	ctx := context.Background()
	driver := riverpgxv5.New(bd.pool)
	migrator, err := rivermigrate.New(driver, nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		b.Fatalf("river migrate: %v", err)
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, river.WorkFunc(func(context.Context, *river.Job[riverBenchArgs]) error { return nil }))
	client, err := river.NewClient(driver, &river.Config{
		FetchCooldown:     2 * time.Millisecond,
		FetchPollInterval: 20 * time.Millisecond,
		Logger:            slog.New(slog.NewTextHandler(io.Discard, nil)),
		Queues:            map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 2000}},
		Workers:           workers,
	})
	if err != nil {
		b.Fatal(err)
	}
	return client
}

// riverInsert inserts n no-op jobs, batch at a time, numbered from first.
func riverInsert(ctx context.Context, client *river.Client[pgx.Tx], first, n, batch int) error {
	params := make([]river.InsertManyParams, 0, batch)
	for done := 0; done < n; done += len(params) {
		params = params[:0]
		for i := range min(batch, n-done) {
			params = append(params, river.InsertManyParams{Args: riverBenchArgs{Num: first + done + i}})
		}
		if _, err := client.InsertMany(ctx, params); err != nil {
			return fmt.Errorf("river insert: %w", err)
		}
	}
	return nil
}

// riverWorked starts client and waits for n completion events; it returns
// the time from Start to the last one, and stops the client.
func riverWorked(b *testing.B, client *river.Client[pgx.Tx], n int, started chan<- time.Time) time.Duration {
	b.Helper()
	ctx := context.Background()
	events, cancel := client.SubscribeConfig(&river.SubscribeConfig{ChanSize: n,
		Kinds: []river.EventKind{river.EventKindJobCompleted, river.EventKindJobFailed, river.EventKindJobCancelled}})
	defer cancel()
	start := time.Now()
	if err := client.Start(ctx); err != nil {
		b.Fatal(err)
	}
	if started != nil {
		started <- start
	}
	defer func() {
		if err := client.Stop(ctx); err != nil {
			b.Errorf("river stop: %v", err)
		}
	}()
	var last time.Time
	timeout := time.After(5 * time.Minute)
	for worked := 0; worked < n; worked++ {
		select {
		case ev := <-events:
			if ev.Kind != river.EventKindJobCompleted {
				b.Fatalf("river job %d: %s, want completed", ev.Job.ID, ev.Kind)
			}
			last = time.Now()
		case <-timeout:
			b.Fatalf("river worked %d of %d jobs in 5 minutes", worked, n)
		}
	}
	return last.Sub(start)
}

// riverBurnDown is `river bench` burn-down: n jobs inserted in batches of
// 5000 with the benchmark's clock stopped, then worked off by one client.
func riverBurnDown(b *testing.B, bd *bundle, n int) time.Duration {
	b.Helper()
	client := riverClient(b, bd)
	b.StopTimer()
	if err := riverInsert(context.Background(), client, 0, n, 5000); err != nil {
		b.Fatal(err)
	}
	// Like the preloads of BenchmarkRelay: fresh statistics, and nothing left
	// for autovacuum to do while the clock runs.
	if _, err := bd.pool.Exec(context.Background(), "VACUUM ANALYZE"); err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	return riverWorked(b, client, n, nil)
}

// riverEndToEnd is River in endToEnd's shape: two producers insert n jobs
// in transactions of 500 (InsertMany) while one client works them; timed
// from the producers' start to the last completion.
func riverEndToEnd(b *testing.B, bd *bundle, n int) time.Duration {
	b.Helper()
	client := riverClient(b, bd)
	started := make(chan time.Time, 1)
	var worked time.Duration
	done := make(chan struct{})
	go func() { defer close(done); worked = riverWorked(b, client, n, started) }()
	workStart := <-started
	const producers, perTx = 2, 500
	start := time.Now()
	var wg sync.WaitGroup
	for p := range producers {
		share := n / producers
		if p == 0 {
			share += n % producers
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := riverInsert(context.Background(), client, p*n, share, perTx); err != nil {
				b.Error(err)
			}
		}()
	}
	wg.Wait()
	<-done
	return worked - start.Sub(workStart)
}
