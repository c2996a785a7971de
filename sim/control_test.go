package sim

import (
	"context"
	"testing"

	"github.com/outboxlab/outboxlab/scenes"
)

// playAll presses n until the script is played and no run is under way,
// as the screen's n and space do, and returns the units played.
func playAll(t *testing.T, se *Session) []Unit {
	t.Helper()
	var units []Unit
	for i := 0; ; i++ {
		if i > 5000 {
			t.Fatal("the script does not end")
		}
		p := se.Position()
		if p.Script >= p.ScriptLen && p.Run == "" {
			return units
		}
		u, _, err := se.Play(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", u.Step, err)
		}
		units = append(units, u)
	}
}

// Played a unit at a time by the run control, every built-in scene ends
// where its headless run ends: the same figures, and its expectations hold.
func TestPlayingAScriptEndsWhereItsRunEnds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	all, err := scenes.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range all {
		t.Run(sc.Name, func(t *testing.T) {
			se := sessionFor(t, sc)
			se.SetScript(sc.Steps)
			units := playAll(t, se)
			if len(units) < len(sc.Steps) {
				t.Fatalf("%d units for %d commands", len(units), len(sc.Steps))
			}
			played, err := se.Sim().Oracles(ctx)
			if err != nil {
				t.Fatal(err)
			}
			res := runBuiltin(t, sc, "")
			for i, o := range res.Oracles {
				for _, f := range o.Figures() {
					got, _ := played[i].Figure(f.Name)
					if got != f.Value && f.Name != "crashes" {
						t.Errorf("%s %s: played %d, run %d", o.Pipeline, f.Name, got, f.Value)
					}
				}
			}
		})
	}
}

// A rewind puts the script back where it stood, a run under way included;
// playing on from there plays the same units again.
func TestRewindPutsTheScriptBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sc := builtin(t, "crash-after-publish")
	se := sessionFor(t, sc)
	se.SetScript(sc.Steps)
	var positions []Position
	for range 6 {
		if _, _, err := se.Play(ctx); err != nil {
			t.Fatal(err)
		}
		positions = append(positions, se.Position())
	}
	if positions[3].Run != "run" || positions[5].Run != "run" {
		t.Fatalf("six units in, no run under way: %+v", positions[5])
	}
	first := se.Log()
	// Back into the middle of the run: it is under way again there, and
	// playing on plays the same units.
	if err := se.Seek(ctx, 4); err != nil {
		t.Fatal(err)
	}
	if p := se.Position(); p.Script != positions[3].Script || p.Run != positions[3].Run {
		t.Fatalf("after the rewind the script is at %d (run %q), want %d (%q)", p.Script, p.Run, positions[3].Script, positions[3].Run)
	}
	for range 2 {
		if _, _, err := se.Play(ctx); err != nil {
			t.Fatal(err)
		}
	}
	again := se.Log()
	for i := range first {
		if again[i].String() != first[i].String() {
			t.Fatalf("command %d: %s, first time %s", i+1, again[i], first[i])
		}
	}
}
