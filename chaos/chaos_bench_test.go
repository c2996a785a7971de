package chaos

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
)

// BenchmarkChaos runs compare-mode schedules, parallel at a time, and
// reports schedules/s and where a run's time goes: building the session
// (resetting two databases, connecting every actor), the schedule's
// commands, the let-go-and-drain, and the oracle's read.
//
//	go test ./chaos -run '^$' -bench BenchmarkChaos -benchtime 100x
func BenchmarkChaos(b *testing.B) {
	ctx := context.Background()
	srv := pgtest.Server(b)
	for _, parallel := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("parallel=%d", parallel), func(b *testing.B) {
			var mu sync.Mutex
			var build, steps, drain, oracle time.Duration
			var wg sync.WaitGroup
			next := make(chan int)
			start := time.Now()
			for w := range parallel {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range next {
						sc := Schedule(1, i, Options{})
						t0 := time.Now()
						se, err := sim.NewSession(ctx, sim.Config{Server: srv, Settings: sc.Settings, DBPrefix: fmt.Sprintf("bench_%d", w)})
						if err != nil {
							b.Error(err)
							return
						}
						t1 := time.Now()
						do := func(st scenes.Step) error { _, _ = se.Do(ctx, st); return nil }
						for _, st := range sc.Steps {
							_ = do(st)
						}
						t2 := time.Now()
						_ = settle(ctx, se, do)
						t3 := time.Now()
						_, _ = se.Sim().Oracles(ctx)
						t4 := time.Now()
						se.Close()
						mu.Lock()
						build, steps, drain, oracle = build+t1.Sub(t0), steps+t2.Sub(t1), drain+t3.Sub(t2), oracle+t4.Sub(t3)
						mu.Unlock()
					}
				}()
			}
			for i := range b.N {
				next <- i
			}
			close(next)
			wg.Wait()
			n := float64(b.N)
			b.ReportMetric(n/time.Since(start).Seconds(), "schedules/s")
			b.ReportMetric(build.Seconds()*1000/n, "build-ms")
			b.ReportMetric(steps.Seconds()*1000/n, "commands-ms")
			b.ReportMetric(drain.Seconds()*1000/n, "drain-ms")
			b.ReportMetric(oracle.Seconds()*1000/n, "oracle-ms")
		})
	}
}
