package sim

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"sync"

	"github.com/outboxlab/outboxlab/scenes"
)

// Session is a simulation with the log of everything done to it: scene
// commands, keys (as the commands they are) and each step of an animated
// run. The log and the seed reproduce the session exactly, so the session
// can go back to any point of it by resetting the databases and replaying
// the log that far (no snapshot faked beside the real tables), go forward
// again, fork (acting at a past point discards the future), and be saved as
// a scene.
type Session struct {
	mu  sync.Mutex
	sim *Sim

	log   []scenes.Step
	marks []int // the timeline's length after each command of the log
	at    int   // commands of the log applied now: len(log) unless rewound

	// forked is where acting at a past point discarded a future; dropped
	// is that future (-1 and nil: never forked).
	forked  int
	dropped future

	control
}

// NewSession starts a session on a new simulation.
func NewSession(ctx context.Context, cfg Config) (*Session, error) {
	s, err := New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &Session{sim: s, forked: -1}, nil
}

// Renew starts the session over on a simulation of other settings and seed
// (0: the settings' own), as NewSession would, on the databases and
// connections the simulation keeps (Sim.Renew): an empty log, no script, no
// fork.
func (se *Session) Renew(ctx context.Context, set scenes.Settings, seed uint64) error {
	se.mu.Lock()
	defer se.mu.Unlock()
	se.log, se.marks, se.at = nil, nil, 0
	se.forked, se.dropped = -1, future{}
	se.control = control{}
	return se.sim.Renew(ctx, set, seed)
}

// Sim is the session's simulation: read it (timeline, oracles, tables);
// change it through the session only, or the log no longer reproduces it.
func (se *Session) Sim() *Sim { return se.sim }

// Close closes the simulation.
func (se *Session) Close() { se.sim.Close() }

// Position is where a session stands in its log.
type Position struct {
	At     int // commands applied
	Len    int // commands in the log (more than At after a rewind)
	Forked int // where a fork discarded a future; -1 if none
	Other  int // the commands of that other future (OtherFuture goes there)
	// Entries is the timeline's length at each point 1..Len (Entries[i] is
	// after the log's command i): a timeline entry belongs to the first
	// point whose length passes it.
	Entries []int

	Keys      int    // the highest k-N Idempotency-Key among the requests applied (the screen's p numbers its keys so)
	Script    int    // the script's commands played (the next is Script+1)
	ScriptLen int    // the script's length
	Run       string // "run" or "drain" while a scripted one plays out, else ""
}

// Position says where the session stands.
func (se *Session) Position() Position {
	se.mu.Lock()
	defer se.mu.Unlock()
	keys := 0
	for _, st := range se.log[:se.at] {
		var n int
		if st.Cmd == scenes.CmdRequest {
			if _, err := fmt.Sscanf(st.KV["key"], "k-%d", &n); err == nil {
				keys = max(keys, n)
			}
		}
	}
	return Position{At: se.at, Len: len(se.log), Forked: se.forked, Other: len(se.dropped.log), Entries: append([]int(nil), se.marks...),
		Keys: keys, Script: se.cursor, ScriptLen: len(se.script), Run: se.run}
}

// Log is the commands applied so far (the future a rewind keeps is not in it).
func (se *Session) Log() []scenes.Step {
	se.mu.Lock()
	defer se.mu.Unlock()
	return append([]scenes.Step(nil), se.log[:se.at]...)
}

// Do applies one command and logs it. At a past point (after a rewind) it
// first discards the future: the session forks there. moved reports whether
// the command changed anything (for Next: whether an actor could move).
// A command the simulator refuses without changing anything (a script
// error that added nothing to the timeline) is not logged. A next that
// found nothing to move is: it may have asked actors for work, which draws
// on the seeded source the replay must draw on too.
func (se *Session) Do(ctx context.Context, st scenes.Step) (moved bool, err error) {
	se.mu.Lock()
	defer se.mu.Unlock()
	return se.do(ctx, st)
}

func (se *Session) do(ctx context.Context, st scenes.Step) (moved bool, err error) {
	before := len(se.sim.Timeline(0))
	moved, err = se.apply(ctx, st)
	after := len(se.sim.Timeline(0))
	var script *ScriptError
	if err != nil && errors.As(err, &script) && after == before {
		return moved, err // refused, nothing changed: no fork either
	}
	if se.at < len(se.log) {
		// Acting at a past point: the future is discarded.
		se.forked, se.dropped = se.at, se.future(se.at)
		se.log, se.marks = se.log[:se.at], se.marks[:se.at]
	}
	se.log = append(se.log, st)
	se.marks = append(se.marks, after)
	se.scriptAt = append(se.scriptAt[:se.at], playState{se.cursor, se.run, se.quiet})
	se.at = len(se.log)
	return moved, err
}

// future is the log after point at, with what each of its points recorded.
type future struct {
	log      []scenes.Step
	marks    []int
	scriptAt []playState
}

func (se *Session) future(at int) future {
	return future{
		log:      append([]scenes.Step(nil), se.log[at:]...),
		marks:    append([]int(nil), se.marks[at:]...),
		scriptAt: append([]playState(nil), se.scriptAt[at:]...),
	}
}

// OtherFuture swaps the future after the fork point with the one the fork
// discarded, and goes to its end: the learner compares the original with
// the fork by going back and forth between them. false: never forked.
func (se *Session) OtherFuture(ctx context.Context) (bool, error) {
	p := se.Position()
	if p.Forked < 0 {
		return false, nil
	}
	if err := se.Seek(ctx, p.Forked); err != nil {
		return false, err
	}
	se.mu.Lock()
	other := se.dropped
	se.dropped = se.future(se.forked)
	se.log = append(se.log[:se.forked:se.forked], other.log...)
	se.marks = append(se.marks[:se.forked:se.forked], other.marks...)
	se.scriptAt = append(se.scriptAt[:se.forked:se.forked], other.scriptAt...)
	n := len(se.log)
	se.mu.Unlock()
	return true, se.Seek(ctx, n)
}

func (se *Session) apply(ctx context.Context, st scenes.Step) (bool, error) {
	if st.Cmd == scenes.CmdNext && len(st.Args) == 0 {
		return se.sim.Step(ctx)
	}
	err := se.sim.Do(ctx, st)
	return err == nil, err
}

// Seek goes to point n of the log (0: the start): forward by applying the
// commands after the current point, back by resetting the databases and
// replaying the log from the seed up to n. The log itself is kept, so
// Seek can go forward again; Do at a past point forks.
func (se *Session) Seek(ctx context.Context, n int) error {
	se.mu.Lock()
	defer se.mu.Unlock()
	if n < 0 || n > len(se.log) {
		return fmt.Errorf("seek %d: the log has %d commands", n, len(se.log))
	}
	if n < se.at {
		if err := se.sim.Reset(ctx); err != nil {
			return fmt.Errorf("rewind: %w", err)
		}
		se.at = 0
	}
	for se.at < n {
		// A command that failed when it was first done fails the same way
		// again (the run is deterministic): that is the state to return to.
		if _, err := se.apply(ctx, se.log[se.at]); err != nil && ctx.Err() != nil {
			return err
		}
		se.at++
	}
	// The script stands where it stood at that point, a run under way
	// then included.
	se.cursor, se.run, se.quiet = 0, "", false
	if n > 0 {
		st := se.scriptAt[n-1]
		se.cursor, se.run, se.quiet = st.cursor, st.run, st.quiet
	}
	return nil
}

// Back steps back to before the last command that changed the timeline;
// false at the start.
func (se *Session) Back(ctx context.Context) (bool, error) {
	p := se.Position()
	if p.At == 0 {
		return false, nil
	}
	// A step that found nothing to do (the quiet end of a run) left the
	// timeline as it was: going back to before it changes nothing the
	// learner can see, so Back goes past it too.
	k := p.At
	for k > 1 && se.quietStep(p, k) {
		k--
	}
	return true, se.Seek(ctx, k-1)
}

// Forward redoes the next command of the log after a rewind; false at its end.
func (se *Session) Forward(ctx context.Context) (bool, error) {
	p := se.Position()
	if p.At == p.Len {
		return false, nil
	}
	return true, se.Seek(ctx, p.At+1)
}

// quietStep says the log's command k (from 1) is a step that added nothing
// to the timeline.
func (se *Session) quietStep(p Position, k int) bool {
	se.mu.Lock()
	defer se.mu.Unlock()
	if k > len(se.log) {
		return false
	}
	st := se.log[k-1]
	return st.Cmd == scenes.CmdNext && len(st.Args) == 0 && p.entriesAt(k) == p.entriesAt(k-1)
}

// entriesAt is the timeline's length at point k (0: before any command).
func (p Position) entriesAt(k int) int {
	if k == 0 {
		return 0
	}
	return p.Entries[k-1]
}

// Scene is the session so far as a scene: base's title and teaches, the
// simulation's settings and seed, the log (a run of Next written as one
// `next N`), and one expectation per figure of each pipeline, as the oracle
// reads the database now. `run` replays it to the same timeline.
func (se *Session) Scene(ctx context.Context, base *scenes.Scene) (*scenes.Scene, error) {
	oracles, err := se.sim.Oracles(ctx)
	if err != nil {
		return nil, err
	}
	return se.SceneOf(base, oracles), nil
}

// SceneOf is Scene with the oracles already read (Sim.Oracles, nothing
// done since), for a caller that reads them anyway.
func (se *Session) SceneOf(base *scenes.Scene, oracles []Oracle) *scenes.Scene {
	steps := se.Log()
	set := se.sim.Settings()
	set.Seed = se.sim.Seed()
	sc := &scenes.Scene{Name: base.Name, Title: base.Title, Teaches: base.Teaches, Translations: maps.Clone(base.Translations),
		Settings: set, Variants: map[string]scenes.Settings{}}
	sc.Steps = compact(steps)
	for _, o := range oracles {
		for _, f := range o.Figures() {
			sc.Expects = append(sc.Expects, scenes.Expect{Pipeline: o.Pipeline, Figure: f.Name, Op: "==", Value: f.Value})
		}
	}
	return sc
}

// compact writes consecutive Next presses as one `next N`: Do runs it the
// same way (it stops where a press would have found nothing to move).
func compact(steps []scenes.Step) []scenes.Step {
	var out []scenes.Step
	for i := 0; i < len(steps); {
		st := steps[i]
		if st.Cmd != scenes.CmdNext || len(st.Args) > 0 {
			out = append(out, st)
			i++
			continue
		}
		j := i
		for j < len(steps) && steps[j].Cmd == scenes.CmdNext && len(steps[j].Args) == 0 {
			j++
		}
		if n := j - i; n > 1 {
			st = scenes.Step{Cmd: scenes.CmdNext, Args: []string{strconv.Itoa(n)}}
		}
		out = append(out, st)
		i = j
	}
	return out
}
