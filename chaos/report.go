package chaos

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/outboxlab/outboxlab/scenes"
)

// Report is what a chaos run found: how many schedules ran, what the outbox
// chain broke (nothing, it is hoped) and how often the naive write lost or
// invented events, with a 95% confidence interval.
type Report struct {
	Seed          uint64        `json:"seed"`
	Mode          scenes.Mode   `json:"mode"`
	Variant       string        `json:"variant,omitempty"`
	From          int           `json:"from"`
	Runs          int           `json:"runs"`
	Elapsed       time.Duration `json:"elapsed_ns"`
	RunsPerSecond float64       `json:"runs_per_second"`
	Payments      int64         `json:"payments"`

	Asked       int  `json:"asked"`       // the runs asked for
	Interrupted bool `json:"interrupted"` // Ctrl-C: Runs is what ran

	OutboxRuns       int            `json:"outbox_runs"`
	OutboxViolations int            `json:"outbox_violations"` // runs that broke an invariant
	OutboxCI         [2]float64     `json:"outbox_violation_rate_ci95"`
	OutboxBroken     map[string]int `json:"outbox_broken_runs"` // per invariant, the runs that broke it

	NaiveRuns      int        `json:"naive_runs"`
	NaiveLostRuns  int        `json:"naive_lost_runs"`    // runs that lost at least one event
	NaiveLost      int64      `json:"naive_lost_events"`  // events lost in all
	NaivePhantRuns int        `json:"naive_phantom_runs"` // runs with at least one phantom effect
	NaivePhantom   int64      `json:"naive_phantom_effects"`
	LostCI         [2]float64 `json:"naive_lost_rate_ci95"`
	PhantomCI      [2]float64 `json:"naive_phantom_rate_ci95"`

	Found []Found `json:"violations,omitempty"`
}

// Found is one violating run: what it broke, the command that replays it
// alone, and (once shrunk) the scene file that shows it in a few lines.
type Found struct {
	Index     int       `json:"index"`
	Violation Violation `json:"violation"`
	Replay    string    `json:"replay"`
	Scene     string    `json:"scene,omitempty"` // the shrunk scene's path
	Run       string    `json:"run,omitempty"`   // the command that runs it
	Commands  int       `json:"commands,omitempty"`
}

// Summarize counts outcomes.
func Summarize(outs []Outcome, o Options, seed uint64, from int, elapsed time.Duration) Report {
	mode := o.Mode
	if mode == "" {
		mode = scenes.Compare
	}
	r := Report{Seed: seed, Mode: mode, Variant: o.Variant, From: from, Runs: len(outs), Elapsed: elapsed, OutboxBroken: map[string]int{}}
	if mode != scenes.Naive {
		for _, f := range Invariants {
			r.OutboxBroken[f] = 0
		}
	}
	if elapsed > 0 {
		r.RunsPerSecond = float64(len(outs)) / elapsed.Seconds()
	}
	for _, out := range outs {
		r.Payments += out.Payments
		if mode != scenes.Naive {
			r.OutboxRuns++
			if out.Violated() {
				r.OutboxViolations++
			}
			for _, v := range out.Violations(mode) {
				if v.Pipeline == string(scenes.Outbox) {
					r.OutboxBroken[v.Figure]++
				}
			}
		}
		if mode != scenes.Outbox {
			r.NaiveRuns++
			if out.NaiveLost > 0 {
				r.NaiveLostRuns++
			}
			if out.NaivePhantom > 0 {
				r.NaivePhantRuns++
			}
			r.NaiveLost += out.NaiveLost
			r.NaivePhantom += out.NaivePhantom
		}
	}
	r.OutboxCI = Wilson(r.OutboxViolations, r.OutboxRuns)
	r.LostCI = Wilson(r.NaiveLostRuns, r.NaiveRuns)
	r.PhantomCI = Wilson(r.NaivePhantRuns, r.NaiveRuns)
	return r
}

// Wilson is the 95% Wilson score interval of k successes in n trials: it
// behaves at 0 and at n, where the normal approximation says nonsense.
func Wilson(k, n int) [2]float64 {
	if n == 0 {
		return [2]float64{0, 0}
	}
	const z = 1.959964
	p, nf := float64(k)/float64(n), float64(n)
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return [2]float64{max(0, mid-half), min(1, mid+half)}
}

// WriteText writes the report as the table a workshop reads.
func (r Report) WriteText(w io.Writer) {
	if r.Interrupted {
		fmt.Fprintf(w, "interrupted: %d of the %d schedules asked for ran\n", r.Runs, r.Asked)
	}
	fmt.Fprintf(w, "chaos: %d schedules of seed %d (from %d), mode %s", r.Runs, r.Seed, r.From, r.Mode)
	if r.Variant != "" {
		fmt.Fprintf(w, ", variant %s", r.Variant)
	}
	fmt.Fprintf(w, ": %.1f s, %.1f schedules/s, %d payments\n\n", r.Elapsed.Seconds(), r.RunsPerSecond, r.Payments)
	if r.OutboxRuns > 0 {
		verdict := "lost, invented and repeated nothing"
		if r.OutboxViolations > 0 {
			verdict = "BROKE A GUARANTEE"
		}
		fmt.Fprintf(w, "  outbox chain   %d of %d runs broke a guarantee (95%% CI %s): it %s\n", r.OutboxViolations, r.OutboxRuns, ci(r.OutboxCI), verdict)
		var parts []string
		for _, f := range append(append([]string(nil), Invariants...), TimelineLeases) {
			if n, ok := r.OutboxBroken[f]; ok {
				parts = append(parts, fmt.Sprintf("%s %d", f, n))
			}
		}
		fmt.Fprintf(w, "                 runs that broke each, after their drain: %s\n", strings.Join(parts, ", "))
	}
	if r.NaiveRuns > 0 {
		fmt.Fprintf(w, "  naive write    lost events in %d of %d runs (%s, 95%% CI %s), %d events in all\n",
			r.NaiveLostRuns, r.NaiveRuns, pct(float64(r.NaiveLostRuns)/float64(r.NaiveRuns)), ci(r.LostCI), r.NaiveLost)
		fmt.Fprintf(w, "                 phantom effects in %d of %d runs (%s, 95%% CI %s), %d effects in all\n",
			r.NaivePhantRuns, r.NaiveRuns, pct(float64(r.NaivePhantRuns)/float64(r.NaiveRuns)), ci(r.PhantomCI), r.NaivePhantom)
	}
	// The shrunk ones first (one of each kind), then a few more.
	shown := 0
	for _, f := range r.Found {
		if f.Scene == "" && shown >= 5 {
			continue
		}
		shown++
		fmt.Fprintf(w, "\n  run %d broke %s\n    alone:  %s\n", f.Index, f.Violation, f.Replay)
		if f.Scene != "" {
			fmt.Fprintf(w, "    shrunk to %d commands: %s\n    replay: %s\n", f.Commands, f.Scene, f.Run)
		}
	}
	if more := len(r.Found) - shown; more > 0 {
		fmt.Fprintf(w, "\n  and %d more violating runs (--json lists them all)\n", more)
	}
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }
func ci(c [2]float64) string {
	return fmt.Sprintf("%s–%s", pct(c[0]), pct(c[1]))
}
