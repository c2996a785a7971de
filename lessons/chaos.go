package lessons

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/outboxlab/outboxlab/chaos"
	"github.com/outboxlab/outboxlab/pg"
)

// ChaosParallel is how many schedules a lesson's chaos run plays at once:
// one a core, at most four (each holds about 16 of PostgreSQL's 100
// connections, and the simulator on screen holds its own).
func ChaosParallel() int { return max(1, min(runtime.NumCPU(), 4)) }

// RunChaos performs a chaos step's task: Chaos schedules of the step's
// mode and the lesson's seed, on databases prefix_<worker>_* of srv, which
// it drops when done. progress (may be nil) sees each run as it ends. The
// table counts what ran; a run cut short by ctx says so (Interrupted).
func (st *Step) RunChaos(ctx context.Context, srv *pg.Server, prefix string, progress chaos.Progress) (chaos.Report, error) {
	if st.Chaos == 0 {
		return chaos.Report{}, fmt.Errorf("step %q runs no chaos", st.Title)
	}
	o := chaos.Options{Mode: st.Settings.Mode}
	seed := st.Settings.Seed
	parallel := ChaosParallel()
	defer dropChaos(srv, prefix, parallel)
	start := time.Now()
	outs, err := chaos.Run(ctx, srv, seed, 0, st.Chaos, parallel, o, prefix, progress)
	rep := chaos.Summarize(outs, o, seed, 0, time.Since(start))
	rep.Asked = st.Chaos
	if ctx.Err() != nil {
		rep.Interrupted = true
		return rep, nil
	}
	if err != nil {
		return rep, fmt.Errorf("chaos run: %w", err)
	}
	return rep, nil
}

// dropChaos drops the databases a run made: they are outboxlab's own, and
// the next run makes them again.
func dropChaos(srv *pg.Server, prefix string, parallel int) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for w := range parallel {
		_ = chaos.WorkerNamespace(pg.OwnNamespace(prefix), w).DropAll(ctx, srv)
	}
}
