package engine

import (
	"context"
	"testing"
	"time"
)

// BenchmarkRelayOrdering drains b.N pre-loaded payments (one event per
// aggregate, batch 100, one relay) with each ordering, on three fresh
// databases of one server, back to back: what each claim costs when
// nothing needs holding back — the NOT EXISTS on the unpublished-aggregate
// index, the lane's hash and its join. x-none is the drain's time against
// claim_batch's in the same run.
func BenchmarkRelayOrdering(b *testing.B) {
	srv := benchServer(b)
	orderings := []Ordering{OrderingNone, OrderingPartition, OrderingOneInFlight}
	bundles := make([]*bundle, len(orderings))
	for i := range bundles {
		bundles[i] = benchSetup(b, srv)
		bundles[i].preload(b, b.N)
	}
	elapsed := make([]time.Duration, len(orderings))
	b.ResetTimer()
	for i, o := range orderings {
		elapsed[i] = drainOrdered(b, bundles[i], o, b.N)
	}
	b.StopTimer()
	perSecond(b, b.N, elapsed[0])
	b.ReportMetric(elapsed[1].Seconds()/elapsed[0].Seconds(), "x-none-partition")
	b.ReportMetric(elapsed[2].Seconds()/elapsed[0].Seconds(), "x-none-one-in-flight")
}

func drainOrdered(b *testing.B, bd *bundle, o Ordering, n int) time.Duration {
	b.Helper()
	ctx := context.Background()
	r := NewRelay(RelayConfig{Name: "relay-1", Connect: bd.connect, Publisher: bd.broker, BatchSize: 100,
		Counters: bd.counters, Ordering: o})
	defer r.Close(ctx)
	if _, err := r.conn(ctx); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for {
		res, err := r.Step(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if res.Idle {
			break
		}
	}
	elapsed := time.Since(start)
	if got := bd.counters.Marked.Load(); got != int64(n) {
		b.Fatalf("%s: marked %d of %d", o, got, n)
	}
	return elapsed
}
