package sim

import (
	"context"
	"fmt"
	"slices"

	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
)

// RunOptions choose how a scene runs headless.
type RunOptions struct {
	Mode     string // "" keeps the scene's mode; naive, outbox or compare override it
	Variant  string // "" runs the scene as written; else a declared variant
	Seed     uint64 // 0 keeps the scene's seed
	DBPrefix string
	// OnEntry, when set, sees every timeline entry as it is recorded.
	OnEntry func(Entry)
}

// Check is one expectation and what the oracle found.
type Check struct {
	Expect  scenes.Expect
	Got     int64
	Held    bool
	Skipped bool // its pipeline did not run in this mode
}

// Result is a headless run of a scene.
type Result struct {
	Scene    *scenes.Scene
	Settings scenes.Settings
	Seed     uint64
	Timeline []Entry
	Oracles  []Oracle
	Checks   []Check
	Held     bool // every expectation that applies held, and at least one applied
	// NoneApplied: every expectation names a pipeline this mode does not run,
	// so nothing was checked; such a run is not a pass.
	NoneApplied bool
}

// Settings returns the settings a scene runs with under o: its variant's,
// then the mode o asks for.
func (o RunOptions) Settings(sc *scenes.Scene) (scenes.Settings, error) {
	set := sc.Settings
	if o.Variant != "" {
		v, ok := sc.Variants[o.Variant]
		if !ok {
			return set, scriptf("scene %s has no variant %q", sc.Name, o.Variant)
		}
		set = v
	}
	mode, err := scenes.ParseMode(o.Mode)
	if err != nil {
		return set, scriptf("--mode %v", err)
	}
	if mode != "" {
		set.Mode = mode
	}
	return set, nil
}

// runnable are the settings sc runs with under o (Settings), refused when
// the scene cannot run as written on srv (CheckScene).
func (o RunOptions) runnable(sc *scenes.Scene, srv *pg.Server) (scenes.Settings, error) {
	set, err := o.Settings(sc)
	if err != nil {
		return set, err
	}
	return set, CheckScene(sc, set, srv.External())
}

// RunScene runs a scene from start to end on fresh databases and checks its
// expected outcome against the oracle.
func RunScene(ctx context.Context, srv *pg.Server, sc *scenes.Scene, opts RunOptions) (*Result, error) {
	set, err := opts.runnable(sc, srv)
	if err != nil {
		return nil, err
	}
	s, err := New(ctx, Config{Server: srv, Settings: set, Seed: opts.Seed, DBPrefix: opts.DBPrefix})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return runOn(ctx, s, sc, set, opts)
}

// RunSceneOn is RunScene on s, renewed for the scene (Sim.Renew: its
// databases emptied in place, its actors' connections kept) instead of a
// new simulation: a fraction of the cost of new databases and a connection
// per actor, for one scene after another. The run is the one RunScene makes,
// the same timeline and figures (TestRunSceneOnARenewedSimIsRunScene).
// opts.DBPrefix is s's, whatever opts says.
func RunSceneOn(ctx context.Context, s *Sim, sc *scenes.Scene, opts RunOptions) (*Result, error) {
	set, err := opts.runnable(sc, s.srv)
	if err != nil {
		return nil, err
	}
	if err := s.Renew(ctx, set, opts.Seed); err != nil {
		return nil, err
	}
	return runOn(ctx, s, sc, set, opts)
}

// runOn runs sc on s, built or renewed for it, to its end and checks its
// expected outcome against the oracle.
func runOn(ctx context.Context, s *Sim, sc *scenes.Scene, set scenes.Settings, opts RunOptions) (*Result, error) {
	var err error
	seen := 0
	emit := func() {
		if opts.OnEntry == nil {
			return
		}
		for _, e := range s.Timeline(seen) {
			opts.OnEntry(e)
			seen++
		}
	}
	for _, st := range sc.Steps {
		if err := s.Do(ctx, st); err != nil {
			emit()
			return nil, fmt.Errorf("%s:%d: %w", sc.File, st.Line, err)
		}
		emit()
	}
	res := &Result{Scene: sc, Settings: set, Seed: s.Seed(), Timeline: s.Timeline(0), Held: true}
	res.Oracles, err = s.Oracles(ctx)
	if err != nil {
		return nil, err
	}
	for _, e := range sc.Expects {
		if e.Variant != opts.Variant {
			continue
		}
		c := Check{Expect: e, Skipped: true}
		for _, o := range res.Oracles {
			if o.Pipeline != e.Pipeline {
				continue
			}
			c.Skipped = false
			c.Got, err = o.Figure(e.Figure)
			if err != nil {
				return nil, err
			}
			c.Held = e.Holds(c.Got)
		}
		if !c.Skipped && !c.Held {
			res.Held = false
		}
		res.Checks = append(res.Checks, c)
	}
	res.NoneApplied = !slices.ContainsFunc(res.Checks, func(c Check) bool { return !c.Skipped })
	if res.NoneApplied {
		res.Held = false
	}
	return res, nil
}
