package chaos

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/fault"
	"github.com/outboxlab/outboxlab/scenes"
)

// Options say what schedules to make.
type Options struct {
	Mode    scenes.Mode   // outbox, naive or compare ("" = compare)
	Variant string        // "" or a key of Variants: the wrong ways, to prove the checker fails
	Faults  []fault.Fault // the faults to draw from (nil = DefaultFaults)
}

// DefaultFaults are the faults drawn when Options.Faults is nil: every
// fault a schedule may hold (fault.Chaos).
var DefaultFaults = fault.Chaos

// Variants are the wrong ways a run can be made with, and what they set.
var Variants = map[string]func(*scenes.Settings){
	"select-then-insert": func(s *scenes.Settings) { s.Consumer = "select-then-insert"; s.Workers = 2 },
	"hold-transaction":   func(s *scenes.Settings) { s.HoldTx = true },
	// Two API processes: with one, commits follow seq order and the cursor
	// loses nothing.
	"seq-cursor": func(s *scenes.Settings) { s.SeqCursor = true; s.Writers = 2 },
	// Claims with no end: a relay crashed holding one
	// strands its rows.
	"lease-forever": func(s *scenes.Settings) { s.LeaseForever = true },
	// The CDC relay: one, a slot streams to one session.
	// Not a wrong way of delivery, another one, under the same faults.
	"cdc": func(s *scenes.Settings) { s.CDC = true; s.Relays = 1 },
}

// Check validates options.
func (o Options) Check() error {
	if _, err := scenes.ParseMode(string(o.Mode)); err != nil {
		return fmt.Errorf("--mode %w", err)
	}
	if _, ok := Variants[o.Variant]; o.Variant != "" && !ok {
		return fmt.Errorf("--variant %q: want select-then-insert, hold-transaction, seq-cursor, lease-forever or cdc", o.Variant)
	}
	if o.Variant != "" && o.Mode == scenes.Naive {
		return fmt.Errorf("--variant %s is a wrong way of the outbox chain: use it with --mode outbox or compare", o.Variant)
	}
	for _, f := range o.Faults {
		if _, err := fault.Parse(string(f), fault.Chaos); err != nil {
			return fmt.Errorf("--faults: %w", err)
		}
	}
	return nil
}

// Schedule is one generated run: a scene, a function of (seed, index).
func Schedule(seed uint64, index int, o Options) *scenes.Scene {
	r := rand.New(rand.NewPCG(seed, uint64(index)*0x9e3779b97f4a7c15+1))
	mode := o.Mode
	if mode == "" {
		mode = scenes.Compare
	}
	set := scenes.DefaultSettings()
	set.Mode = mode
	set.Relays = 1 + r.IntN(2)
	set.Workers = 1 + r.IntN(2)
	set.MaxAttempts = 3 // a poison message dead-letters in a few drain rounds
	set.Seed = r.Uint64()%1_000_000 + 1
	if r.IntN(2) == 0 {
		set.Naive = "publish-then-commit"
	}
	if v := Variants[o.Variant]; v != nil {
		v(&set)
	}
	faults := o.Faults
	if faults == nil {
		faults = DefaultFaults
	}
	g := gen{r: r, set: set, faults: faults}
	sc := &scenes.Scene{
		Name:     fmt.Sprintf("chaos-%d-%d", seed, index),
		Title:    fmt.Sprintf("Chaos run %d of seed %d", index, seed),
		Teaches:  "A random schedule of requests and faults, then a drain: the outbox chain loses, invents and repeats nothing.",
		Settings: set, Variants: map[string]scenes.Settings{},
	}
	sc.Steps = g.steps()
	sc.Expects = Expects(set)
	return sc
}

// Expects are the outbox chain's guarantees after a drain, as expect lines.
func Expects(set scenes.Settings) []scenes.Expect {
	if !slices.Contains(set.Pipelines(), string(scenes.Outbox)) {
		return nil
	}
	var out []scenes.Expect
	for _, f := range Invariants {
		out = append(out, scenes.Expect{Pipeline: string(scenes.Outbox), Figure: f, Op: "==", Value: 0})
	}
	return out
}

// Invariants are the outbox figures that must be 0 after every drain.
var Invariants = []string{"lost_events", "phantom_effects", "duplicate_effects", "suppressed_effects", "double_leases", "pending"}

// TimelineLeases is the violation of a timeline whose double leases differ
// from the database's witness (double_leases): the two must tell the same
// story of who held which row.
const TimelineLeases = "double_leases_from_timeline"

type gen struct {
	r        *rand.Rand
	set      scenes.Settings
	faults   []fault.Fault
	requests int
	stalled  []string
	down     bool
}

// steps are 1–8 requests and 0–6 faults in a random order, each followed
// now and then by a run or a few steps, then everything let go and a drain.
func (g *gen) steps() []scenes.Step {
	nReq, nFault := 1+g.r.IntN(8), g.r.IntN(7)
	var out []scenes.Step
	for nReq+nFault > 0 {
		if g.r.IntN(nReq+nFault) < nReq {
			out = append(out, g.request())
			nReq--
		} else {
			out = append(out, g.fault()...)
			nFault--
		}
		switch g.r.IntN(3) {
		case 0:
			out = append(out, scenes.Run)
		case 1:
			out = append(out, scenes.Step{Cmd: scenes.CmdNext, Args: []string{fmt.Sprint(1 + g.r.IntN(6))}})
		}
	}
	// The runner lets everything go and drains (RunOne's settle).
	return out
}

func (g *gen) request() scenes.Step {
	g.requests++
	if g.requests > 1 && g.r.IntN(6) == 0 {
		return scenes.Resend(fmt.Sprintf("k-%d", 1+g.r.IntN(g.requests-1)))
	}
	key := ""
	if g.r.IntN(3) > 0 {
		key = fmt.Sprintf("k-%d", g.requests)
	}
	return scenes.Request(100*(1+g.r.IntN(50)), "acme", key, g.r.IntN(12) == 0)
}

func (g *gen) fault() []scenes.Step {
	switch kind := g.faults[g.r.IntN(len(g.faults))]; kind {
	case fault.Crash, fault.Stall:
		actor := g.actor()
		cps := g.set.CheckpointsOf(actor)
		cp := cps[g.r.IntN(len(cps))]
		if kind == fault.Stall {
			if slices.Contains(g.stalled, actor) {
				return nil
			}
			g.stalled = append(g.stalled, actor)
			return []scenes.Step{scenes.Arm(fault.Stall, actor, cp)}
		}
		return []scenes.Step{scenes.Arm(fault.Crash, actor, cp)}
	case fault.FailCommit, fault.DropCommit:
		writer, at := g.writer()
		return []scenes.Step{scenes.Arm(kind, writer, at)}
	case fault.Duplicate:
		return []scenes.Step{scenes.Duplicate}
	case fault.Broker:
		g.down = !g.down
		return []scenes.Step{scenes.Broker(!g.down)}
	default: // advance: past a lease or an ack timeout, or a little
		d := []time.Duration{time.Second, 5 * time.Second, 31 * time.Second, 2 * time.Minute}[g.r.IntN(4)]
		return []scenes.Step{scenes.Advance(d)}
	}
}

// actor is any actor of the pipelines that run; in compare mode a consumer
// is one pipeline's (outbox/accounting) or both.
func (g *gen) actor() string {
	all := g.set.AllActors()
	a := all[g.r.IntN(len(all))]
	if g.set.Mode == scenes.Compare && a != "api" && a != "naive" && !isRelay(a) && g.r.IntN(2) == 0 {
		return []string{"naive/", "outbox/"}[g.r.IntN(2)] + a
	}
	return a
}

// writer is a writer and a checkpoint before its COMMIT, where a failed or
// dropped COMMIT can be armed.
func (g *gen) writer() (string, engine.Checkpoint) {
	var ws []string
	for _, p := range g.set.Pipelines() {
		ws = append(ws, g.set.Actors(p)[0])
	}
	w := ws[g.r.IntN(len(ws))]
	if w == "api" {
		return w, engine.APIInserted
	}
	if g.set.Naive == "publish-then-commit" {
		return w, engine.NaivePublished
	}
	return w, engine.NaiveInserted
}

func isRelay(a string) bool { return len(a) > 6 && a[:6] == "relay-" }
