package sim

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/scenes"
)

// state is everything a learner can see of a simulation at one point: every
// row of every table, every figure of the oracle, the metrics and the
// timeline, as text; two points are the same when their states are equal.
func state(t testing.TB, s *Sim) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	for _, p := range s.Pipelines() {
		for _, name := range TableNames {
			tb, err := s.Table(ctx, p.Kind, name, 0, 10000)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s.%s %d: %q %q\n", p.Kind, name, tb.Total, tb.Keys, tb.Rows)
		}
	}
	ors, err := s.Oracles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "oracles %+v\n", ors)
	ms, err := s.Metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "metrics %+v\nactors %+v\n", ms, s.Actors())
	b.WriteString(timelineJSON(t, s.Timeline(0)))
	return b.String()
}

// timelineJSON is the timeline as `run --json` writes it, a line an entry.
func timelineJSON(t testing.TB, tl []Entry) string {
	t.Helper()
	var b strings.Builder
	if err := WriteJSONLines(&b, tl); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// session plays a scene's script through a session the way the screen does:
// each `run` as the presses of n it takes (so every step is a point of the
// log), everything else as its command.
func session(t *testing.T, sc *scenes.Scene) *Session {
	t.Helper()
	se := sessionFor(t, sc)
	playSteps(t, se, sc.Steps)
	return se
}

// playSteps does a scene's commands on the session, a run as the TUI's n
// does it: one step at a time until nothing moves.
func playSteps(t *testing.T, se *Session, steps []scenes.Step) {
	t.Helper()
	ctx := context.Background()
	for _, st := range steps {
		if st.Cmd != "run" {
			if _, err := se.Do(ctx, st); err != nil {
				t.Fatalf("%s: %v", st, err)
			}
			continue
		}
		for {
			moved, err := se.Do(ctx, scenes.Next)
			if err != nil {
				t.Fatalf("next: %v", err)
			}
			if !moved {
				break
			}
		}
	}
}

// Going back to any point of a session and forward again gives the tables,
// the oracle, the metrics and the timeline of the straight run at that
// point: a rewind is the real database, replayed.
func TestRewindToEveryPointMatchesTheStraightRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, name := range []string{"crash-after-publish", "dual-write-crash", "two-relays", "out-of-order"} {
		t.Run(name, func(t *testing.T) {
			sc := builtin(t, name)
			if name == "dual-write-crash" {
				sc.Settings.Mode = "compare"
			}
			// The straight run, its state at every point.
			straight := session(t, sc)
			n := straight.Position().Len
			if n < 3 {
				t.Fatalf("only %d points", n)
			}
			se := sessionFor(t, sc)
			want := []string{state(t, se.Sim())}
			for _, st := range straight.Log() {
				if _, err := se.Do(ctx, st); err != nil {
					t.Fatalf("%s: %v", st, err)
				}
				want = append(want, state(t, se.Sim()))
			}
			// Backwards from the end, one point at a time, then a jump
			// forward to the end, then to points in a scattered order.
			log := straight.Log()
			pos := straight.Position()
			quiet := func(k int) bool { // the command k (from 1) a step that added nothing
				prev := 0
				if k > 1 {
					prev = pos.Entries[k-2]
				}
				return log[k-1].Cmd == scenes.CmdNext && len(log[k-1].Args) == 0 && pos.Entries[k-1] == prev
			}
			for i := n - 1; i >= 0; i-- {
				if i+1 > 1 && quiet(i+1) {
					continue // Back goes past a quiet step (TestBackPassesAQuietStep)
				}
				if ok, err := se.Back(ctx); err != nil || !ok {
					t.Fatalf("back to %d: %v %v", i, ok, err)
				}
				if got := state(t, se.Sim()); got != want[i] {
					t.Fatalf("back at point %d of %d differs from the straight run:\n%s", i, n, firstDiff(got, want[i]))
				}
			}
			if ok, _ := se.Back(ctx); ok {
				t.Fatal("back at the start moved")
			}
			for _, i := range []int{n, n / 2, 1, n - 1, 0, n} {
				if err := se.Seek(ctx, i); err != nil {
					t.Fatal(err)
				}
				if got := state(t, se.Sim()); got != want[i] {
					t.Fatalf("seek %d of %d differs from the straight run:\n%s", i, n, firstDiff(got, want[i]))
				}
			}
			if p := se.Position(); p.At != n || p.Len != n || p.Forked != -1 {
				t.Fatalf("position %+v after going back and forth", p)
			}
		})
	}
}

// Acting at a past point forks: the future is discarded (and said so), the
// timeline up to the point is the original's, and it diverges after.
func TestForkDiscardsTheFutureAndKeepsThePast(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sc := builtin(t, "crash-after-publish")
	se := session(t, sc)
	orig := se.Sim().Timeline(0)
	p := se.Position()
	k := p.Len / 2
	if err := se.Seek(ctx, k); err != nil {
		t.Fatal(err)
	}
	keep := p.Entries[k-1]
	if _, err := se.Do(ctx, scenes.Step{Cmd: "duplicate"}); err != nil {
		t.Fatal(err)
	}
	q := se.Position()
	if q.Forked != k || q.Len != k+1 || q.At != k+1 {
		t.Fatalf("after the fork: %+v, want forked at %d, %d commands", q, k, k+1)
	}
	got := se.Sim().Timeline(0)
	if a, b := timelineJSON(t, got[:keep]), timelineJSON(t, orig[:keep]); a != b {
		t.Fatalf("the fork changed the past:\n%s", firstDiff(a, b))
	}
	if len(got) <= keep || got[keep].Explain == orig[keep].Explain {
		t.Fatalf("the fork does not diverge after its point: entry %d is %q", keep, got[min(keep, len(got)-1)].Explain)
	}
}

// A saved session is a scene `run` replays to the same timeline, byte for
// byte, and whose every expectation holds.
func TestSavedSessionReplaysByteIdentically(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, name := range []string{"crash-after-publish", "two-consumers", "poison-message"} {
		t.Run(name, func(t *testing.T) {
			sc := builtin(t, name)
			se := session(t, sc)
			// A learner's own presses after the script: a duplicate, a
			// request, a few steps, the clock, a drain.
			for _, st := range []scenes.Step{{Cmd: "duplicate"}, {Cmd: "request", KV: map[string]string{"amount": "700"}}, scenes.Next, scenes.Next, scenes.Next,
				{Cmd: "advance", Args: []string{"31s"}}, {Cmd: "drain"}} {
				if _, err := se.Do(ctx, st); err != nil {
					t.Fatalf("%s: %v", st, err)
				}
			}
			saved, err := se.Scene(ctx, sc)
			if err != nil {
				t.Fatal(err)
			}
			text := saved.Text()
			if !strings.Contains(text, "\nnext ") || !strings.Contains(text, "expect outbox duplicate_effects == 0") {
				t.Fatalf("the saved scene lacks its steps or expectations:\n%s", text)
			}
			back, err := scenes.Parse("saved", "saved.scene", strings.NewReader(text))
			if err != nil {
				t.Fatalf("%v\n%s", err, text)
			}
			res, err := RunScene(ctx, serverFor(t, back.Settings, back.Steps), back, RunOptions{DBPrefix: prefix()})
			if err != nil {
				t.Fatal(err)
			}
			if a, b := timelineJSON(t, res.Timeline), timelineJSON(t, se.Sim().Timeline(0)); a != b {
				t.Fatalf("run of the saved scene differs from the session:\n%s", firstDiff(a, b))
			}
			if !res.Held {
				t.Fatalf("the saved scene's expectations fail: %+v", res.Checks)
			}
		})
	}
}

func builtin(t testing.TB, name string) *scenes.Scene {
	t.Helper()
	all, err := scenes.Load("")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenes.Find(all, name)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d\n got %s\nwant %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(al), len(bl))
}

// BenchmarkRewind goes back one command from the end of a session of n
// commands (a request every tenth, a second of the clock every tenth, steps
// between), the dearest point to reach: a reset of the databases and a
// replay of n-1 commands from the seed. The target: 100 commands ≤ 150 ms.
func BenchmarkRewind(b *testing.B) {
	ctx := context.Background()
	for _, mode := range []string{"outbox", "compare"} {
		for _, n := range []int{50, 100, 200} {
			b.Run(fmt.Sprintf("%s/n=%d", mode, n), func(b *testing.B) {
				set := scenes.DefaultSettings()
				set.Mode = scenes.Mode(mode)
				se, err := NewSession(ctx, Config{Server: pgtest.Server(b), Settings: set, DBPrefix: prefix()})
				if err != nil {
					b.Fatal(err)
				}
				defer se.Close()
				for se.Position().Len < n {
					st := scenes.Next
					switch se.Position().Len % 10 {
					case 0:
						st = scenes.Step{Cmd: "request"}
					case 5:
						st = scenes.Step{Cmd: "advance", Args: []string{"1s"}}
					}
					if _, err := se.Do(ctx, st); err != nil {
						b.Fatal(err)
					}
				}
				b.ResetTimer()
				for range b.N {
					if err := se.Seek(ctx, n-1); err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					if err := se.Seek(ctx, n); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
			})
		}
	}
}

// A command refused at a past point changes nothing, so it forks nothing:
// the future is still there for ] (found by a review: a refused resend
// after a rewind threw the rest of the session away).
func TestARefusedCommandAtAPastPointKeepsTheFuture(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	se := session(t, builtin(t, "crash-after-publish"))
	n := se.Position().Len
	if err := se.Seek(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := se.Do(ctx, scenes.Resend("k-9")); err == nil {
		t.Fatal("a resend of a key never sent was not refused")
	}
	if p := se.Position(); p.Len != n || p.At != 2 || p.Forked != -1 {
		t.Fatalf("after a refused command at point 2: %+v, want the %d commands kept", p, n)
	}
}

// The screen reads the clock, the timeline and the oracle while a rewind
// replays: no data race (run with -race).
func TestReadingWhileRewinding(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	se := session(t, builtin(t, "crash-after-publish"))
	done := make(chan struct{})
	var readErr error
	go func() {
		defer close(done)
		for i := 0; i < 50 && readErr == nil; i++ {
			se.Sim().Now()
			se.Sim().TimelineSince(0, 0)
			if _, err := se.Sim().Oracles(ctx); err != nil {
				readErr = fmt.Errorf("read %d of the oracle: %w", i+1, err)
			}
		}
	}()
	for i := 0; i < 3; i++ {
		if err := se.Seek(ctx, 1); err != nil {
			t.Fatal(err)
		}
		if err := se.Seek(ctx, se.Position().Len); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	if readErr != nil {
		t.Errorf("the oracle, read during a rewind: %v", readErr)
	}
}

// After a fork the learner compares the two futures: OtherFuture goes to
// the original's end, the same as the straight run, and back to the fork's.
func TestOtherFutureSwapsTheForkAndTheOriginal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	se := session(t, builtin(t, "crash-after-publish"))
	original := timelineJSON(t, se.Sim().Timeline(0))
	n := se.Position().Len
	if ok, err := se.OtherFuture(ctx); ok || err != nil {
		t.Fatalf("never forked, yet OtherFuture: %v %v", ok, err)
	}
	if err := se.Seek(ctx, n/2); err != nil {
		t.Fatal(err)
	}
	for _, st := range []scenes.Step{scenes.Duplicate, scenes.Next, scenes.Next} {
		if _, err := se.Do(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	fork := timelineJSON(t, se.Sim().Timeline(0))
	if fork == original {
		t.Fatal("the fork did not diverge")
	}
	if ok, err := se.OtherFuture(ctx); !ok || err != nil {
		t.Fatalf("OtherFuture: %v %v", ok, err)
	}
	if got := timelineJSON(t, se.Sim().Timeline(0)); got != original {
		t.Fatalf("the other future is not the original:\n%s", firstDiff(got, original))
	}
	if p := se.Position(); p.Len != n || p.At != n || p.Other != 3 {
		t.Fatalf("at the original: %+v", p)
	}
	if _, err := se.OtherFuture(ctx); err != nil {
		t.Fatal(err)
	}
	if got := timelineJSON(t, se.Sim().Timeline(0)); got != fork {
		t.Fatalf("back to the fork differs:\n%s", firstDiff(got, fork))
	}
}

// [ after a run goes back to before its last step that did something: the
// run's quiet end (a step with nothing to do, logged like any other) would
// otherwise make the first [ change nothing on screen.
func TestBackPassesAQuietStep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	se := session(t, builtin(t, "crash-after-publish"))
	for range 3 { // steps with nothing left to do
		if _, err := se.Do(ctx, scenes.Next); err != nil {
			t.Fatal(err)
		}
	}
	before := len(se.Sim().Timeline(0))
	if ok, err := se.Back(ctx); err != nil || !ok {
		t.Fatalf("back: %v %v", ok, err)
	}
	if after := len(se.Sim().Timeline(0)); after >= before {
		t.Errorf("back left the timeline at %d entries (it had %d): nothing changed on screen", after, before)
	}
}
