package chaos

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// A schedule is a function of (seed, index): the same twice, another for
// another index.
func TestSchedulesAreSeeded(t *testing.T) {
	a, b, c := Schedule(7, 3, Options{}).Text(), Schedule(7, 3, Options{}).Text(), Schedule(7, 4, Options{}).Text()
	if a != b || a == c {
		t.Fatalf("schedule 7/3 twice differs, or equals 7/4:\n%s\n---\n%s", a, c)
	}
	if _, err := scenes.Parse("x", "x.scene", strings.NewReader(a)); err != nil {
		t.Fatalf("a schedule does not parse: %v\n%s", err, a)
	}
}

// Under random crashes, stalls, failed and dropped COMMITs, duplicates, a
// broker going down and the clock jumping, the outbox chain breaks nothing
// in any run, while the naive dual write beside it loses or invents events
// in some.
func TestTheOutboxHoldsUnderChaos(t *testing.T) {
	t.Parallel()
	outs, err := Run(context.Background(), pgtest.Server(t), 1, 0, 120, 2, Options{}, "chaoshold", nil)
	if err != nil {
		t.Fatal(err)
	}
	naive := 0
	for _, o := range outs {
		if o.Violated() {
			t.Errorf("run %d broke %v:\n%s", o.Index, o.Broken, o.Scene.Text())
		}
		if o.NaiveLost+o.NaivePhantom > 0 {
			naive++
		}
	}
	if len(outs) != 120 || naive == 0 {
		t.Fatalf("%d runs, %d with a naive loss or phantom: the chaos is too tame to show anything", len(outs), naive)
	}
	t.Logf("120 runs: the naive write lost or invented events in %d", naive)
}

// The checker can fail: with the naive pipeline alone, and with the wrong
// consumer (a SELECT decides, two workers), it finds violations and shrinks
// each to a scene of a few lines that `run` replays to the same failure.
func TestTheCheckerFindsAndShrinks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := pgtest.Server(t)
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"naive", Options{Mode: scenes.Naive}},
		{"select-then-insert", Options{Mode: scenes.Outbox, Variant: "select-then-insert"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The first 60 schedules, ten at a time, up to the first
			// violation: each schedule is a function of seed and index, so
			// this finds what one run of 60 would have found first,
			// without running the rest.
			var bad *Outcome
			for from := 0; from < 60 && bad == nil; from += 10 {
				outs, err := Run(ctx, srv, 1, from, from+10, 2, tc.o, "chaosfind", nil)
				if err != nil {
					t.Fatal(err)
				}
				for i := range outs {
					if len(outs[i].Violations(tc.o.Mode)) > 0 {
						bad = &outs[i]
						break
					}
				}
			}
			if bad == nil {
				t.Fatalf("60 runs of %s found no violation: the checker cannot fail", tc.name)
			}
			v := bad.Violations(tc.o.Mode)[0]
			small, _, tries, err := Shrink(ctx, srv, bad.Scene, tc.o.Mode, v, "chaosshrink")
			if err != nil {
				t.Fatal(err)
			}
			text := small.Text()
			t.Logf("run %d broke %s; shrunk in %d tries from %d to %d commands:\n%s", bad.Index, v, tries, len(bad.Scene.Steps), len(small.Steps), text)
			if len(small.Steps) >= len(bad.Scene.Steps) && len(bad.Scene.Steps) > 6 || len(small.Steps) > 10 {
				t.Errorf("not shrunk: %d commands from %d", len(small.Steps), len(bad.Scene.Steps))
			}
			sc, err := scenes.Parse("shrunk", "shrunk.scene", strings.NewReader(text))
			if err != nil {
				t.Fatalf("%v\n%s", err, text)
			}
			res, err := sim.RunScene(ctx, srv, sc, sim.RunOptions{DBPrefix: "chaosreplay"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Held || len(res.Checks) != 1 || res.Checks[0].Skipped {
				t.Fatalf("the shrunk scene does not break its expect line when run: %+v", res.Checks)
			}
		})
	}
}

// The same schedule twice is the same run, entry for entry and figure for
// figure. These runs differed between two runs before: a blocked actor let
// go while its waiter had not woken yet, a crashed actor's rollback or a
// dropped COMMIT still under way when the next actor moved.
//
// On the quiet server, alone: on the server the other chaos tests' runs
// share, a run differed from itself replayed (seen in a clean-clone CI run
// with every chaos test in parallel); the two runs compared must meet the
// same server, with nothing else on it.
func TestSchedulesReplayExactly(t *testing.T) {
	t.Parallel()
	srv := pgtest.Quiet(t)
	for _, c := range []struct {
		seed  uint64
		index int
		o     Options
	}{
		{7, 34, Options{}}, {7, 64, Options{}}, {7, 120, Options{}}, {7, 195, Options{}},
		{3, 24, Options{Variant: "hold-transaction"}},
		{5, 0, Options{Variant: "select-then-insert"}}, {5, 4, Options{Variant: "select-then-insert"}},
		{11, 8, Options{Mode: scenes.Naive}},
	} {
		sc := Schedule(c.seed, c.index, c.o)
		if a, b := freshRecord(t, srv, sc), freshRecord(t, srv, sc); a != b {
			t.Errorf("%s ran twice differs:\n%s\n---\n%s", sc.Name, a, b)
		}
	}
}

// freshRecord runs a schedule on a session of its own, as RunOne does, and
// returns what a learner could read of it: the timeline as `run --json`
// writes it, then every figure of every pipeline.
func freshRecord(t *testing.T, srv *pg.Server, sc *scenes.Scene) string {
	t.Helper()
	ctx := context.Background()
	se, err := sim.NewSession(ctx, sim.Config{Server: srv, Settings: sc.Settings, DBPrefix: "chaosfresh"})
	if err != nil {
		t.Fatal(err)
	}
	defer se.Close()
	do := doer(ctx, se)
	for _, st := range sc.Steps {
		if err := do(st); err != nil {
			t.Fatal(err)
		}
	}
	if err := settle(ctx, se, do); err != nil {
		t.Fatal(err)
	}
	return runRecord(t, se)
}

// runRecord is a run as a learner could read it: the timeline as `run
// --json` writes it, then every figure of every pipeline.
func runRecord(t *testing.T, se *sim.Session) string {
	t.Helper()
	var b strings.Builder
	if err := sim.WriteJSONLines(&b, se.Sim().Timeline(0)); err != nil {
		t.Fatal(err)
	}
	oracles, err := se.Sim().Oracles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range oracles {
		fmt.Fprintf(&b, "%s %v\n", o.Pipeline, o.Figures())
	}
	return b.String()
}

// A worker renews one session from run to run (the databases emptied in
// place, the actors' connections kept, the settings those of each
// schedule); every run must be the run a session of its own makes: the
// same timeline entry for entry, the same figures.
//
// On the quiet server, as TestSchedulesReplayExactly is.
func TestAWorkerRunsAsAFreshSessionDoes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := pgtest.Quiet(t)
	w := NewWorker(srv, "chaosworker")
	defer w.Close()
	shapes := map[string]bool{}
	for i := range 24 {
		sc := Schedule(5, i, Options{})
		if out := w.Run(ctx, sc); out.Err != nil {
			t.Fatal(out.Err)
		}
		if got, want := runRecord(t, w.se), freshRecord(t, srv, sc); got != want {
			t.Fatalf("run %d after %d others differs from the same run alone:\n%s\n---\n%s", i, i, got, want)
		}
		shapes[fmt.Sprintf("relays %d workers %d", sc.Settings.Relays, sc.Settings.Workers)] = true
	}
	if len(shapes) < 3 {
		t.Fatalf("the settings changed too little from run to run to show anything: %v", shapes)
	}
}
