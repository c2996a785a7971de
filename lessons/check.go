package lessons

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/chaos"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
)

// Check is one condition a step's task must bring about, read from the
// simulator's real state: the oracle, the timeline, a table's rows or an
// actor's state. It never looks at which keys were pressed.
type Check struct {
	Line   int    // where it is written
	Source string // the check as written, after "check:" (shown beside its status)

	Kind       string // oracle | table | timeline | actor | chaos
	Pipeline   string // naive | outbox; "" = any (timeline, actor)
	Figure     string // oracle: a scenes.Figures name; chaos: a ChaosFigures name
	Table      string // table: a sim.TableNames name
	Actor      string // timeline, actor
	Event      string // timeline: crashed | reached | restarted | blocked | failed
	Checkpoint string // timeline (crashed at, reached), actor (at); "" = anywhere
	State      string // actor: idle | paused | stalled | blocked | crashed | down
	Op         string // == != >= <= > <
	Value      int64
	Lang       string // the lesson's language, for what Eval says it found

	named   bool // the check names its pipeline (oracle, table, timeline, actor)
	counted bool // a timeline check gives its OP N (else >= 1)
}

// What Eval says it found is in the message catalog, in the check's
// language, with plurals; figure, table, actor and state names stay as the
// check language writes them.
func (c *Check) words() *catalog.Printer { return catalog.For(c.Lang) }

// CheckKinds documents the check language, one form a line.
var CheckKinds = []struct{ Form, Means string }{
	{"oracle: [PIPELINE] FIGURE OP N", "an oracle figure (the figures of scene expect lines) compared with N"},
	{"table: [PIPELINE] TABLE count OP N", "the number of rows in a table (payments, outbox_messages, inbox_messages, ledger_entries, notifications)"},
	{"timeline: [PIPELINE/]ACTOR crashed [at CHECKPOINT] [OP N]", "timeline entries since the step began: the actor crashed (there)"},
	{"timeline: [PIPELINE/]ACTOR reached CHECKPOINT [OP N]", "... the actor reached the checkpoint"},
	{"timeline: [PIPELINE/]ACTOR restarted|blocked|failed [OP N]", "... the actor was restarted, waited on a row lock, or ended a unit with an error (a failed COMMIT)"},
	{"actor: [PIPELINE/]ACTOR is STATE [at CHECKPOINT]", "the actor's state now: idle, paused, stalled, blocked, crashed; the broker: idle or down"},
	{"chaos: FIGURE OP N", "in a step with a chaos: N line, a figure of the run's table: runs, outbox_violations, naive_runs, naive_lost_runs, naive_phantom_runs"},
}

// ChaosFigures are the figures a chaos: check reads from a chaos run's
// table (chaos.Report), by name.
var ChaosFigures = map[string]func(chaos.Report) int64{
	"runs":               func(r chaos.Report) int64 { return int64(r.Runs) },
	"outbox_violations":  func(r chaos.Report) int64 { return int64(r.OutboxViolations) },
	"naive_runs":         func(r chaos.Report) int64 { return int64(r.NaiveRuns) },
	"naive_lost_runs":    func(r chaos.Report) int64 { return int64(r.NaiveLostRuns) },
	"naive_phantom_runs": func(r chaos.Report) int64 { return int64(r.NaivePhantRuns) },
}

// Findings is what a step learned outside the simulator: the table of the
// chaos run a chaos step asked for (nil until it ran).
type Findings struct {
	Chaos *chaos.Report
}

var ops = []string{"==", "!=", ">=", "<=", ">", "<"}

var states = []string{"idle", "paused", "stalled", "blocked", "crashed", "down"}

// reachable are the checkpoints a timeline entry can show: the ones a fault
// can be armed at, and the API's two answers that cannot be interrupted.
var reachable = append(slices.Clone(scenes.Checkpoints), engine.APIReplayed, engine.APIResolved)

// env is what a check is validated against: the pipelines and actors of
// the settings its step runs with.
type env struct {
	pipelines []string
	actors    []string
}

func envOf(set scenes.Settings) env {
	return env{pipelines: set.Pipelines(), actors: append(set.AllActors(), "broker")}
}

// parseCheck reads the text after "check:" for a step running in e.
func parseCheck(src string, e env) (Check, error) {
	c := Check{Source: strings.TrimSpace(src)}
	kind, rest, ok := strings.Cut(c.Source, ":")
	if !ok {
		return c, fmt.Errorf("check: want KIND: ..., KIND one of oracle, table, timeline, actor")
	}
	c.Kind = strings.TrimSpace(kind)
	f := strings.Fields(rest)
	var err error
	switch c.Kind {
	case "oracle":
		err = c.parseOracle(f, e)
	case "table":
		err = c.parseTable(f, e)
	case "timeline":
		err = c.parseTimeline(f, e)
	case "actor":
		err = c.parseActor(f, e)
	case "chaos":
		err = c.parseChaos(f)
	default:
		return c, fmt.Errorf("check: unknown kind %q (known: oracle, table, timeline, actor, chaos)", c.Kind)
	}
	if err != nil {
		return c, fmt.Errorf("check %s: %w", c.Kind, err)
	}
	return c, nil
}

// pipeline takes an optional leading pipeline name; with two pipelines
// running, an oracle or table check must say which.
func (c *Check) pipeline(f []string, e env) ([]string, error) {
	if len(f) > 0 && (f[0] == "naive" || f[0] == "outbox") {
		c.Pipeline, c.named = f[0], true
		if !slices.Contains(e.pipelines, c.Pipeline) {
			return f, fmt.Errorf("pipeline %s does not run here (running: %s)", c.Pipeline, strings.Join(e.pipelines, ", "))
		}
		return f[1:], nil
	}
	if len(e.pipelines) > 1 {
		return f, fmt.Errorf("name the pipeline (naive or outbox): this step runs both")
	}
	c.Pipeline = e.pipelines[0]
	return f, nil
}

func (c *Check) comparison(f []string) error {
	if len(f) != 2 {
		return fmt.Errorf("want OP N at the end, e.g. >= 1")
	}
	if !slices.Contains(ops, f[0]) {
		return fmt.Errorf("operator %q is not one of %s", f[0], strings.Join(ops, " "))
	}
	v, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return fmt.Errorf("%q is not a whole number", f[1])
	}
	c.Op, c.Value = f[0], v
	return nil
}

func (c *Check) parseOracle(f []string, e env) error {
	f, err := c.pipeline(f, e)
	if err != nil {
		return err
	}
	if len(f) != 3 {
		return fmt.Errorf("want [PIPELINE] FIGURE OP N, e.g. oracle: outbox duplicates_ignored >= 1")
	}
	if !slices.Contains(scenes.Figures, f[0]) {
		return fmt.Errorf("unknown figure %q (known: %s)", f[0], strings.Join(scenes.Figures, ", "))
	}
	c.Figure = f[0]
	return c.comparison(f[1:])
}

func (c *Check) parseTable(f []string, e env) error {
	f, err := c.pipeline(f, e)
	if err != nil {
		return err
	}
	if len(f) != 4 || f[1] != "count" {
		return fmt.Errorf("want [PIPELINE] TABLE count OP N, e.g. table: outbox ledger_entries count == 1")
	}
	if !slices.Contains(sim.TableNames, f[0]) {
		return fmt.Errorf("unknown table %q (known: %s)", f[0], strings.Join(sim.TableNames, ", "))
	}
	c.Table = f[0]
	return c.comparison(f[2:])
}

// actor reads [PIPELINE/]ACTOR and checks the actor runs here.
func (c *Check) actor(word string, e env) error {
	if p, a, ok := strings.Cut(word, "/"); ok {
		if !slices.Contains(e.pipelines, p) {
			return fmt.Errorf("pipeline %q does not run here (running: %s)", p, strings.Join(e.pipelines, ", "))
		}
		c.Pipeline, c.named, word = p, true, a
	}
	if !slices.Contains(e.actors, word) {
		return fmt.Errorf("no actor %q here (actors: %s)", word, strings.Join(e.actors, ", "))
	}
	c.Actor = word
	return nil
}

// checkpointOf checks a checkpoint's name, and that the actor can reach it
// (a relay never reaches consumer.acked): a typo in a lesson is caught
// when it loads, not by a check that can never pass.
func checkpointOf(actor, cp string) error {
	if !slices.Contains(reachable, engine.Checkpoint(cp)) {
		names := make([]string, len(reachable))
		for i, r := range reachable {
			names[i] = string(r)
		}
		return fmt.Errorf("unknown checkpoint %q (known: %s)", cp, strings.Join(names, ", "))
	}
	prefix := map[string]string{"api": "api.", "naive": "naive.", "broker": "broker."}[actor]
	switch {
	case strings.HasPrefix(actor, "relay-"):
		prefix = "relay."
	case strings.HasPrefix(actor, "accounting"), actor == "notifications":
		prefix = "consumer."
	}
	if !strings.HasPrefix(cp, prefix) {
		return fmt.Errorf("%s never reaches %s (its checkpoints start with %s)", actor, cp, prefix)
	}
	return nil
}

func (c *Check) parseTimeline(f []string, e env) error {
	const form = "want [PIPELINE/]ACTOR crashed [at CHECKPOINT] | reached CHECKPOINT | restarted | blocked | failed, then optionally OP N"
	if len(f) < 2 {
		return fmt.Errorf("%s", form)
	}
	if err := c.actor(f[0], e); err != nil {
		return err
	}
	c.Event, f = f[1], f[2:]
	switch c.Event {
	case "crashed":
		if len(f) >= 2 && f[0] == "at" {
			c.Checkpoint, f = f[1], f[2:]
		}
	case "reached":
		if len(f) < 1 {
			return fmt.Errorf("reached: want a checkpoint")
		}
		c.Checkpoint, f = f[0], f[1:]
	case "restarted", "blocked", "failed":
	default:
		return fmt.Errorf("unknown event %q; %s", c.Event, form)
	}
	if c.Checkpoint != "" {
		if err := checkpointOf(c.Actor, c.Checkpoint); err != nil {
			return err
		}
	}
	if len(f) == 0 {
		c.Op, c.Value = ">=", 1
		return nil
	}
	c.counted = true
	return c.comparison(f)
}

func (c *Check) parseActor(f []string, e env) error {
	const form = "want [PIPELINE/]ACTOR is STATE [at CHECKPOINT], e.g. actor: relay-1 is stalled at relay.claimed"
	if len(f) != 3 && len(f) != 5 || f[1] != "is" {
		return fmt.Errorf("%s", form)
	}
	if err := c.actor(f[0], e); err != nil {
		return err
	}
	if !slices.Contains(states, f[2]) {
		return fmt.Errorf("unknown state %q (known: %s)", f[2], strings.Join(states, ", "))
	}
	c.State = f[2]
	if c.Actor == "broker" && c.State != "idle" && c.State != "down" || c.Actor != "broker" && c.State == "down" {
		return fmt.Errorf("%s cannot be %s (the broker is idle or down; the other actors are never down)", c.Actor, c.State)
	}
	if len(f) == 5 {
		if f[3] != "at" {
			return fmt.Errorf("%s", form)
		}
		c.Checkpoint = f[4]
		if err := checkpointOf(c.Actor, c.Checkpoint); err != nil {
			return err
		}
	}
	return nil
}

func (c *Check) parseChaos(f []string) error {
	if len(f) == 0 || ChaosFigures[f[0]] == nil {
		return fmt.Errorf("want FIGURE OP N, FIGURE one of runs, outbox_violations, naive_runs, naive_lost_runs, naive_phantom_runs")
	}
	c.Figure = f[0]
	return c.comparison(f[1:])
}

func (c *Check) holds(got int64) bool {
	return scenes.Expect{Op: c.Op, Value: c.Value}.Holds(got)
}

// Eval evaluates the check on the simulator now. since is how many
// timeline entries there were when the step began (len(s.Timeline(0)) at
// that moment; 0 on a fresh simulator): a timeline check only counts what
// happened during the step. detail says what was found, for the lesson pane.
//
// Like sim.Actors, an actor check reads the actors' states: call Eval when
// no simulator operation is running (after an action's result came back).
func (c *Check) Eval(ctx context.Context, s *sim.Sim, since int) (ok bool, detail string, err error) {
	return c.EvalWith(ctx, s, since, Findings{})
}

// EvalWith is Eval with what the step found outside the simulator.
func (c *Check) EvalWith(ctx context.Context, s *sim.Sim, since int, f Findings) (ok bool, detail string, err error) {
	switch c.Kind {
	case "chaos":
		if f.Chaos == nil {
			return false, c.words().T("no chaos run yet"), nil
		}
		got := ChaosFigures[c.Figure](*f.Chaos)
		return c.holds(got), c.words().T("%s = %d", c.figure(), got), nil
	case "oracle":
		all, err := s.Oracles(ctx)
		if err != nil {
			return false, "", fmt.Errorf("check %q: %w", c.Source, err)
		}
		for _, o := range all {
			if o.Pipeline != c.Pipeline {
				continue
			}
			got, err := o.Figure(c.Figure)
			if err != nil {
				return false, "", fmt.Errorf("check %q: %w", c.Source, err)
			}
			return c.holds(got), c.words().T("%s %s = %d", c.Pipeline, c.figure(), got), nil
		}
		return false, c.words().T("no %s pipeline is running", c.Pipeline), nil
	case "table":
		if s.Pipeline(c.Pipeline) == nil {
			return false, c.words().T("no %s pipeline is running", c.Pipeline), nil
		}
		t, err := s.Table(ctx, c.Pipeline, c.Table, 0, 0)
		if err != nil {
			return false, "", fmt.Errorf("check %q: %w", c.Source, err)
		}
		return c.holds(int64(t.Total)), c.words().T("%s %s: %d rows", c.Pipeline, c.Table, t.Total), nil
	case "timeline":
		n := int64(0)
		for _, e := range s.Timeline(since) {
			if c.matches(e) {
				n++
			}
		}
		return c.holds(n), c.words().T("%d matching timeline entries in this step", n), nil
	case "actor":
		seen := false
		for _, a := range s.Actors() {
			if a.Name != c.Actor || c.Pipeline != "" && a.Pipeline != c.Pipeline {
				continue
			}
			seen = true
			state := a.State.String()
			where := ""
			if a.At != "" && state != "idle" {
				where = c.words().Word(" at ") + string(a.At)
			}
			if state == c.State && (c.Checkpoint == "" || string(a.At) == c.Checkpoint) {
				return true, c.words().T("%s is %s%s", c.Actor, c.state(state), where), nil
			}
			detail = c.words().T("%s is %s%s", c.Actor, c.state(state), where)
		}
		if !seen {
			return false, c.words().T("no actor %s is running", c.Actor), nil
		}
		return false, detail, nil
	}
	return false, "", fmt.Errorf("check %q: unknown kind %q", c.Source, c.Kind)
}

// matches reports whether a timeline entry is what a timeline check counts.
func (c *Check) matches(e sim.Entry) bool {
	if e.Actor != c.Actor || c.Pipeline != "" && e.Pipeline != c.Pipeline {
		return false
	}
	switch c.Event {
	case "crashed":
		return e.Kind == sim.KindCrash && (c.Checkpoint == "" || e.Checkpoint == c.Checkpoint)
	case "reached":
		return e.Kind == sim.KindCheckpoint && e.Checkpoint == c.Checkpoint
	case "restarted":
		return e.Kind == sim.KindRestart
	case "blocked":
		return e.Kind == sim.KindBlocked
	case "failed":
		return e.Kind == sim.KindError
	}
	return false
}

// Outcome is one check's result.
type Outcome struct {
	Check  *Check
	OK     bool
	Detail string
}

// Eval evaluates every check of the step; passed is true when all hold.
func (st *Step) Eval(ctx context.Context, s *sim.Sim, since int) (passed bool, out []Outcome, err error) {
	return st.EvalWith(ctx, s, since, Findings{})
}

// EvalWith is Eval with what the step found outside the simulator.
func (st *Step) EvalWith(ctx context.Context, s *sim.Sim, since int, f Findings) (passed bool, out []Outcome, err error) {
	passed = true
	for i := range st.Checks {
		c := &st.Checks[i]
		ok, detail, err := c.EvalWith(ctx, s, since, f)
		if err != nil {
			return false, out, err
		}
		out = append(out, Outcome{Check: c, OK: ok, Detail: detail})
		passed = passed && ok
	}
	return passed, out, nil
}
