package chaos

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
)

// Outcome is what one schedule came to, read by the oracle from the
// databases after its drain.
type Outcome struct {
	Index int
	Scene *scenes.Scene
	// Broken are the outbox invariants that did not hold, each with what
	// its figure came to (outbox lost_events == 1).
	Broken []Violation
	// NaiveLost and NaivePhantom are the naive pipeline's lost events and
	// phantom effects (compare and naive modes).
	NaiveLost, NaivePhantom int64
	Payments                int64 // committed payments (the outbox's, else the naive's)
	Err                     error // the run could not be carried out (not a violation)
	Took                    time.Duration
	phases                  phases
}

// Violated reports whether the outbox chain broke a guarantee.
func (o Outcome) Violated() bool { return len(o.Broken) > 0 }

// RunOne runs a scene on its own databases (prefix) and reads its outcome.
// A command the simulator refuses (a resume of an actor whose stall never
// fired) is left out, as a session leaves it out of its log. At the end
// everything is let go and drained until nothing is held: stalled actors
// resumed, the broker up. Outcome.Scene is what ran, which `run` replays to
// the same timeline.
func RunOne(ctx context.Context, srv *pg.Server, sc *scenes.Scene, prefix string) Outcome {
	w := NewWorker(srv, prefix)
	defer w.Close()
	return w.Run(ctx, sc)
}

// A Worker runs schedules one after another on databases of its own
// (prefix): the first builds its session, each next one renews it (the
// databases emptied in place, the actors' connections kept, see
// sim.Sim.Renew), which is what a run would otherwise spend most of its
// time on. A run is the same either way: the same timeline, the same
// figures. A Worker is for one goroutine at a time.
type Worker struct {
	srv    *pg.Server
	prefix string
	se     *sim.Session
}

// NewWorker returns a worker on databases named after prefix.
func NewWorker(srv *pg.Server, prefix string) *Worker { return &Worker{srv: srv, prefix: prefix} }

// Close closes the worker's session: nothing it opened stays behind.
func (w *Worker) Close() {
	if w.se != nil {
		w.se.Close()
		w.se = nil
	}
}

// phases is where a run's time went (BenchmarkChaos reports them).
type phases struct {
	build, commands, drain, oracle time.Duration
}

// session is a session for sc: the worker's own, renewed, or a new one. A
// session that failed to renew (PostgreSQL went away, say) is closed and
// built again.
func (w *Worker) session(ctx context.Context, sc *scenes.Scene) (*sim.Session, error) {
	if w.se != nil {
		err := w.se.Renew(ctx, sc.Settings, 0)
		if err == nil {
			return w.se, nil
		}
		w.Close()
		if ctx.Err() != nil {
			return nil, err
		}
	}
	se, err := sim.NewSession(ctx, w.config(sc))
	if err != nil {
		return nil, err
	}
	w.se = se
	return se, nil
}

// config is a worker's session's: its resets delete rows rather than
// truncate tables (sim.ResetDelete), since it is renewed run after run on
// databases nothing else reads.
func (w *Worker) config(sc *scenes.Scene) sim.Config {
	return sim.Config{Server: w.srv, Settings: sc.Settings, DBPrefix: w.prefix, Reset: sim.ResetDelete}
}

// Run runs a scene as RunOne does, on the worker's databases.
func (w *Worker) Run(ctx context.Context, sc *scenes.Scene) (out Outcome) {
	start := time.Now()
	out.Scene = sc
	defer func() { out.Took = time.Since(start) }()
	se, err := w.session(ctx, sc)
	if err != nil {
		out.Err = err
		return out
	}
	t1 := time.Now()
	out.phases.build = t1.Sub(start)
	defer func() {
		if out.Err != nil {
			// Whatever state the failure left is not built on.
			w.Close()
		}
	}()
	do := doer(ctx, se)
	for _, st := range sc.Steps {
		if out.Err = do(st); out.Err != nil {
			return out
		}
	}
	t2 := time.Now()
	out.phases.commands = t2.Sub(t1)
	if out.Err = settle(ctx, se, do); out.Err != nil {
		return out
	}
	t3 := time.Now()
	out.phases.drain = t3.Sub(t2)
	defer func() { out.phases.oracle = time.Since(t3) }()
	oracles, err := se.Sim().Oracles(ctx)
	if err != nil {
		out.Err = err
		return out
	}
	ran := se.SceneOf(sc, oracles)
	ran.Expects = Expects(sc.Settings)
	out.Scene = ran
	for _, o := range oracles {
		switch o.Pipeline {
		case string(scenes.Naive):
			out.NaiveLost, out.NaivePhantom = o.LostEvents, o.PhantomEffects
			if out.Payments == 0 {
				out.Payments = o.Payments
			}
		case string(scenes.Outbox):
			out.Payments = o.Payments
			for _, e := range ran.Expects {
				if got, _ := o.Figure(e.Figure); !e.Holds(got) {
					out.Broken = append(out.Broken, Violation{Pipeline: string(scenes.Outbox), Figure: e.Figure, Got: got})
				}
			}
			// The lease witness in the database and the timeline must
			// tell the same story of who held which row.
			if tl := TimelineDoubleLeases(se.Sim().Timeline(0), sc.Settings.HoldTx); int64(tl) != o.DoubleLeases {
				out.Broken = append(out.Broken, Violation{Pipeline: string(scenes.Outbox), Figure: TimelineLeases, Got: int64(tl)})
			}
		}
	}
	return out
}

// settle lets everything go and drains, until no actor is held and the
// broker is up (a stall armed for later may fire during a drain).
func settle(ctx context.Context, se *sim.Session, do func(scenes.Step) error) error {
	for range 5 {
		down := false
		for _, a := range se.Sim().Actors() {
			switch {
			case a.State == sim.Stalled:
				if err := do(scenes.Resume(qualified(se, a))); err != nil {
					return err
				}
			case a.State == sim.Down:
				down = true
			}
		}
		if down { // one command brings every pipeline's broker up
			if err := do(scenes.Broker(true)); err != nil {
				return err
			}
		}
		if err := do(scenes.Drain); err != nil {
			return err
		}
		if !stalled(se) {
			return nil
		}
	}
	return errors.New("an actor is still held after five rounds of letting go and draining")
}

func stalled(se *sim.Session) bool {
	for _, a := range se.Sim().Actors() {
		if a.State == sim.Stalled || a.State == sim.Down {
			return true
		}
	}
	return false
}

// qualified names an actor of one pipeline in compare mode.
func qualified(se *sim.Session, a sim.ActorView) string {
	if se.Sim().Settings().Mode == scenes.Compare && a.Pipeline != "" {
		return a.Pipeline + "/" + a.Name
	}
	return a.Name
}

// WorkerNamespace is where Run's worker w plays its schedules: its
// databases within the run's (prefix_<worker>_outbox).
func WorkerNamespace(run pg.Namespace, w int) pg.Namespace { return run.Sub(strconv.Itoa(w)) }

// Progress is called after each run, from one goroutine at a time.
type Progress func(done int, o Outcome)

// Run runs schedules from..to-1 of a seed, parallel at a time, each on
// databases of its own (prefix_<worker>), and returns their outcomes in
// index order. It stops early, with what ran, when ctx ends.
func Run(ctx context.Context, srv *pg.Server, seed uint64, from, to, parallel int, o Options, prefix string, progress Progress) ([]Outcome, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	parallel = max(1, parallel)
	outcomes := make([]Outcome, to-from)
	var next atomic.Int64
	next.Store(int64(from))
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	for w := range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk := NewWorker(srv, WorkerNamespace(pg.NamespaceOf(prefix), w).Prefix())
			defer wk.Close()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= to {
					return
				}
				out := wk.Run(ctx, Schedule(seed, i, o))
				out.Index = i
				if ctx.Err() != nil && out.Err != nil {
					return // cancelled under it: not an outcome
				}
				mu.Lock()
				outcomes[i-from] = out
				done++
				if progress != nil {
					progress(done, out)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	ran := outcomes[:0]
	for _, out := range outcomes {
		if out.Scene != nil {
			ran = append(ran, out)
		}
	}
	for _, out := range ran {
		if out.Err != nil && !errors.Is(out.Err, context.Canceled) {
			return ran, fmt.Errorf("run %d: %w", out.Index, out.Err)
		}
	}
	return ran, ctx.Err()
}

// doer runs a schedule's commands on a session: a command the simulator
// refuses (a resume of an actor whose stall never fired) is left out, as a
// session leaves it out of its log; any other error ends the run.
func doer(ctx context.Context, se *sim.Session) func(scenes.Step) error {
	return func(st scenes.Step) error {
		_, err := se.Do(ctx, st)
		var script *sim.ScriptError
		if errors.As(err, &script) {
			return nil
		}
		return err
	}
}
