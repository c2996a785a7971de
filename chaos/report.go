package chaos

import (
	"fmt"
	"io"
	"math"
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

	OutboxRuns       int `json:"outbox_runs"`
	OutboxViolations int `json:"outbox_violations"` // runs that broke an invariant

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
	r := Report{Seed: seed, Mode: mode, Variant: o.Variant, From: from, Runs: len(outs), Elapsed: elapsed}
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
		fmt.Fprintf(w, "  outbox chain   %d of %d runs broke a guarantee: it %s\n", r.OutboxViolations, r.OutboxRuns, verdict)
		fmt.Fprintf(w, "                 (0 lost events, 0 phantom effects, 0 duplicate effects, 0 double leases, 0 pending after each drain)\n")
	}
	if r.NaiveRuns > 0 {
		fmt.Fprintf(w, "  naive write    lost events in %d of %d runs (%s, 95%% CI %s), %d events in all\n",
			r.NaiveLostRuns, r.NaiveRuns, pct(float64(r.NaiveLostRuns)/float64(r.NaiveRuns)), ci(r.LostCI), r.NaiveLost)
		fmt.Fprintf(w, "                 phantom effects in %d of %d runs (%s, 95%% CI %s), %d effects in all\n",
			r.NaivePhantRuns, r.NaiveRuns, pct(float64(r.NaivePhantRuns)/float64(r.NaiveRuns)), ci(r.PhantomCI), r.NaivePhantom)
	}
	for _, f := range r.Found {
		fmt.Fprintf(w, "\n  run %d broke %s\n    alone:  %s\n", f.Index, f.Violation, f.Replay)
		if f.Scene != "" {
			fmt.Fprintf(w, "    shrunk to %d commands: %s\n    replay: %s\n", f.Commands, f.Scene, f.Run)
		}
	}
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }
func ci(c [2]float64) string {
	return fmt.Sprintf("%s–%s", pct(c[0]), pct(c[1]))
}
