package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/chaos"
	"github.com/outboxlab/outboxlab/engine/fault"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/spf13/cobra"
)

// newChaos runs seeded random fault schedules (chaos.RunHunt) and prints the
// table, also after Ctrl-C, of what ran. Exit 1 when a guarantee broke.
func newChaos() *cobra.Command {
	var (
		pf                    pgFlags
		h                     chaos.Hunt
		mode, variant, faults string
		asJSON                bool
	)
	cmd := &cobra.Command{
		Use:   "chaos",
		Short: "run seeded random fault schedules and shrink what broke to a scene",
		Long: `run seeded random fault schedules; print how often the naive
write lost or invented events and whether the outbox broke
anything; shrink each violation to a scene (exit 1 if any)`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usage(fmt.Errorf("unexpected argument %q (flags only)", args[0]))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
			m, err := scenes.ParseMode(mode)
			if err != nil {
				return badinput.Errorf("--mode %w", err)
			}
			h.Options = chaos.Options{Mode: m, Variant: variant}
			if faults != "" {
				h.Faults = fault.Split(faults)
			}
			if err := h.Check(); err != nil {
				return badinput.Wrap(err)
			}
			if h.Runs < 1 || h.From < 0 || h.Parallel < 1 {
				return badinput.New("--runs and --parallel want 1 or more, --from 0 or more")
			}
			if h.Parallel > 6 {
				return badinput.Errorf("--parallel %d: at most 6 (each schedule holds about 16 connections, and PostgreSQL allows 100)", h.Parallel)
			}
			ctx, cancel := signalContext()
			defer cancel()
			srv, err := pg.Boot(ctx, pf.options())
			if err != nil {
				return err
			}
			defer srv.Stop()
			h.Progress = progressLine(stderr, h.Runs)
			rep, err := chaos.RunHunt(ctx, srv, h)
			if h.Progress != nil {
				fmt.Fprintln(stderr)
			}
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				_ = enc.Encode(rep)
			} else {
				rep.WriteText(stdout)
			}
			if len(rep.Found) > 0 || rep.Interrupted {
				return errFailed // a guarantee broke, or not all ran
			}
			return nil
		},
	}
	fs := cmd.Flags()
	pf.register(fs)
	fs.IntVar(&h.Runs, "runs", 200, "how many schedules to run")
	fs.IntVar(&h.From, "from", 0, "the first schedule's index (a failing run replays alone with --from I --runs 1)")
	fs.Uint64Var(&h.Seed, "seed", 1, "seed of the schedules: the same seed gives the same schedules and the same table")
	fs.StringVar(&mode, "mode", "compare", "pipelines to run: compare (the naive write beside the outbox), outbox or naive")
	fs.StringVar(&variant, "variant", "", "a wrong way, to see the checker fail: select-then-insert or hold-transaction")
	fs.StringVar(&faults, "faults", "", "fault kinds to draw from, comma-separated (default all: "+fault.Join(fault.Chaos)+")")
	// Two schedules a core: a run waits on PostgreSQL about half its time
	// (round trips, a blocked actor's probe), so one a core leaves the
	// cores idle part of it. Measured on two cores, 200 schedules: 2 at
	// once 13.5-17.3/s, 3 16.2-19.1/s, 4 19.0-20.6/s, 6 16.4-20.2/s.
	fs.IntVar(&h.Parallel, "parallel", min(2*runtime.NumCPU(), 4), "schedules run at once, each on databases of its own (at most 6: each holds about 16 connections of PostgreSQL's 100)")
	fs.StringVar(&h.OutDir, "out", "outboxlab-scenes", "where shrunk scenes are written")
	fs.BoolVar(&h.NoShrink, "no-shrink", false, "report violations without shrinking them")
	fs.BoolVar(&asJSON, "json", false, "print the report as JSON")
	completeFlags(cmd)
	return cmd
}

// progressLine redraws one line on a terminal: runs done, runs/s and what
// broke so far; nil (no line) when stderr is not a terminal.
func progressLine(stderr io.Writer, total int) chaos.Progress {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return nil
	}
	start := time.Now()
	broke, lost, phantom := 0, 0, 0
	return func(done int, o chaos.Outcome) {
		if o.Violated() {
			broke++
		}
		if o.NaiveLost > 0 {
			lost++
		}
		if o.NaivePhantom > 0 {
			phantom++
		}
		rate := float64(done) / max(time.Since(start).Seconds(), 0.001)
		fmt.Fprintf(f, "\r  %d/%d schedules · %.1f/s · outbox broke %d · naive lost in %d, phantoms in %d   ", done, total, rate, broke, lost, phantom)
	}
}
