package pg

import (
	"context"
	"path/filepath"
	"testing"
)

// benchDataDir is a data directory Boot creates, as tempDataDir.
func benchDataDir(b *testing.B) string {
	return filepath.Join(tempParent(b), "data")
}

// BenchmarkBootWarm measures Boot on an existing cluster, up to ready
// (binaries resolved, server started, schema checked); Stop is not timed.
func BenchmarkBootWarm(b *testing.B) {
	dir := benchDataDir(b)
	srv, err := Boot(context.Background(), Options{DataDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	if err := srv.Stop(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		srv, err := Boot(context.Background(), Options{DataDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := srv.Stop(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkBootCold measures Boot from an empty data directory (initdb,
// databases, migrations).
func BenchmarkBootCold(b *testing.B) {
	dir := benchDataDir(b)
	for b.Loop() {
		srv, err := Boot(context.Background(), Options{DataDir: dir, Fresh: true})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := srv.Stop(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkSceneReset measures Reset of a database holding a scene's worth of
// rows (a few hundred per table).
func BenchmarkSceneReset(b *testing.B) {
	srv, err := Boot(context.Background(), Options{DataDir: benchDataDir(b)})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Stop()
	ctx := context.Background()
	pool, err := srv.Pool(ctx, appDatabase)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	const fill = `
WITH p AS (
  INSERT INTO payments (id, client_id, amount_cents, currency, created_at)
  SELECT gen_random_uuid(), 'c', 100, 'EUR', '2026-01-01' FROM generate_series(1, 300) RETURNING id
)
INSERT INTO outbox_messages (id, aggregate_type, aggregate_id, aggregate_version, event_type, payload, occurred_at, next_attempt_at)
SELECT gen_random_uuid(), 'payment', p.id::text, 1, 'payment.created', '{}', '2026-01-01', '2026-01-01' FROM p`
	for b.Loop() {
		b.StopTimer()
		if _, err := pool.Exec(ctx, fill); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := Reset(ctx, pool); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCreateDatabase measures CreateDatabase and DropDatabase of a
// database, as a test or a simulation makes and drops one, on a server
// with fsync on (a user's) and off (the tests'): each takes the strategy
// createStrategy gives it. The -short pass of CI runs the fsync-off arm.
func BenchmarkCreateDatabase(b *testing.B) {
	arms := []struct {
		name     string
		settings map[string]string
	}{{"fsync=off", map[string]string{"fsync": "off"}}, {"fsync=on", nil}}
	for _, arm := range arms {
		b.Run(arm.name, func(b *testing.B) {
			if testing.Short() && arm.settings == nil {
				b.Skip("a second cold boot; the strategy of a user's server is timed without -short")
			}
			srv, err := Boot(context.Background(), Options{DataDir: benchDataDir(b), Settings: arm.settings})
			if err != nil {
				b.Fatal(err)
			}
			defer srv.Stop()
			ctx := context.Background()
			for b.Loop() {
				if err := srv.CreateDatabase(ctx, "bench_create"); err != nil {
					b.Fatal(err)
				}
				if err := srv.DropDatabase(ctx, "bench_create"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
