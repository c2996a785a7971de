package chaos

import (
	"context"
	"fmt"
	"strconv"

	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
)

// Violation is what a run broke: a pipeline's figure that should be 0
// (its kind: one of Invariants, or TimelineLeases) and what it came to.
type Violation struct {
	Pipeline string `json:"pipeline"` // outbox, or naive when the naive pipeline is what is run
	Figure   string `json:"figure"`
	Got      int64  `json:"got"`
}

func (v Violation) String() string { return fmt.Sprintf("%s %s == %d", v.Pipeline, v.Figure, v.Got) }

// Violations are what an outcome broke: the outbox chain's invariants, and
// in naive mode the naive write's lost events and phantoms (which compare
// mode counts instead, beside an outbox that must not break).
func (o Outcome) Violations(mode scenes.Mode) []Violation {
	out := append([]Violation(nil), o.Broken...)
	if mode == scenes.Naive {
		if o.NaiveLost > 0 {
			out = append(out, Violation{string(scenes.Naive), "lost_events", o.NaiveLost})
		}
		if o.NaivePhantom > 0 {
			out = append(out, Violation{string(scenes.Naive), "phantom_effects", o.NaivePhantom})
		}
	}
	return out
}

// Shrink makes a failing scene as small as it can while it still breaks v:
// it drops commands (halves, then quarters, down to single commands, as
// delta debugging does), then makes numbers small (a run of n presses, an
// amount, a clock advance). Each try is a real run on the databases of
// prefix (one Worker renewed from try to try). The result expects v's
// figure to be 0, the line it breaks; the violation is the shrunk run's own
// (its count may be smaller).
func Shrink(ctx context.Context, srv *pg.Server, sc *scenes.Scene, mode scenes.Mode, v Violation, prefix string) (*scenes.Scene, Violation, int, error) {
	w := NewWorker(srv, prefix)
	defer w.Close()
	tries := 0
	fails := func(steps []scenes.Step) (bool, error) {
		tries++
		try := *sc
		try.Steps = steps
		out := w.Run(ctx, &try)
		if out.Err != nil {
			return false, out.Err
		}
		for _, w := range out.Violations(mode) {
			if w.Pipeline == v.Pipeline && w.Figure == v.Figure {
				return true, nil
			}
		}
		return false, nil
	}
	steps := withoutSettle(sc.Steps)
	if ok, err := fails(steps); err != nil || !ok {
		return nil, Violation{}, tries, fmt.Errorf("run %s does not break %s again: %v", sc.Name, v, err)
	}
	// Drop chunks, largest first, then single commands, and make numbers
	// small, until a whole pass changes nothing: a command kept early may
	// go once a later one is gone.
	for changed := true; changed; {
		changed = false
		for n := max(1, len(steps)/2); n >= 1; n /= 2 {
			for i := 0; i+n <= len(steps); {
				cand := append(append([]scenes.Step(nil), steps[:i]...), steps[i+n:]...)
				ok, err := fails(cand)
				if err != nil {
					return nil, Violation{}, tries, err
				}
				if ok {
					steps, changed = cand, true
					continue
				}
				i += n
			}
			if n == 1 {
				break
			}
		}
		for i := range steps {
			for _, simpler := range simplify(steps[i]) {
				cand := append([]scenes.Step(nil), steps...)
				cand[i] = simpler
				ok, err := fails(cand)
				if err != nil {
					return nil, Violation{}, tries, err
				}
				if ok {
					steps, changed = cand, true
					break
				}
			}
		}
	}
	// What ran, with the settle at the end, is what `run` replays.
	small := *sc
	small.Steps = steps
	final := w.Run(ctx, &small)
	tries++
	if final.Err != nil {
		return nil, Violation{}, tries, final.Err
	}
	got := Violation{}
	for _, w := range final.Violations(mode) {
		if w.Pipeline == v.Pipeline && w.Figure == v.Figure {
			got = w
		}
	}
	if got.Figure == "" {
		return nil, Violation{}, tries, fmt.Errorf("the shrunk run of %s no longer breaks %s", sc.Name, v)
	}
	out := *final.Scene
	out.Expects = []scenes.Expect{{Pipeline: v.Pipeline, Figure: v.Figure, Op: "==", Value: 0}}
	return &out, got, tries, nil
}

// withoutSettle drops what RunOne's settle added at the end (it adds it
// again on every try): the trailing resumes, broker up and drains.
func withoutSettle(steps []scenes.Step) []scenes.Step {
	end := len(steps)
	for end > 0 {
		c := steps[end-1].Cmd
		if c != scenes.CmdDrain && c != scenes.CmdResume && !(c == scenes.CmdBroker && steps[end-1].String() == "broker up") {
			break
		}
		end--
	}
	return append([]scenes.Step(nil), steps[:end]...)
}

// simplify offers smaller versions of a command, smallest first.
func simplify(st scenes.Step) []scenes.Step {
	switch st.Cmd {
	case scenes.CmdNext:
		if len(st.Args) == 1 {
			n, _ := strconv.Atoi(st.Args[0])
			var out []scenes.Step
			for _, m := range []int{1, n / 2} {
				if m >= 1 && m < n {
					if m == 1 {
						out = append(out, scenes.Next)
					} else {
						out = append(out, scenes.Step{Cmd: scenes.CmdNext, Args: []string{strconv.Itoa(m)}})
					}
				}
			}
			return out
		}
	case scenes.CmdRequest:
		if st.KV["amount"] != "100" {
			c := scenes.Step{Cmd: st.Cmd, Args: st.Args, KV: map[string]string{}}
			for k, v := range st.KV {
				c.KV[k] = v
			}
			c.KV["amount"] = "100"
			return []scenes.Step{c}
		}
	}
	return nil
}
