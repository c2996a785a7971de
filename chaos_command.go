package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/outboxlab/outboxlab/chaos"
	"github.com/outboxlab/outboxlab/engine/fault"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
)

// chaosRun runs seeded random fault schedules, prints the table (also
// after Ctrl-C, of what ran), shrinks each kind of violation to a scene and
// writes it where `run --scenes` finds it. Exit 1 when a guarantee broke.
func chaosRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("chaos", stderr)
	var pf pgFlags
	pf.register(fs)
	runs := fs.Int("runs", 200, "how many schedules to run")
	from := fs.Int("from", 0, "the first schedule's index (a failing run replays alone with --from I --runs 1)")
	seed := fs.Uint64("seed", 1, "seed of the schedules: the same seed gives the same schedules and the same table")
	mode := fs.String("mode", "compare", "pipelines to run: compare (the naive write beside the outbox), outbox or naive")
	variant := fs.String("variant", "", "a wrong way, to see the checker fail: select-then-insert or hold-transaction")
	faults := fs.String("faults", "", "fault kinds to draw from, comma-separated (default all: "+fault.Join(fault.Chaos)+")")
	// Two schedules a core: a run waits on PostgreSQL about half its time
	// (round trips, a blocked actor's probe), so one a core leaves the
	// cores idle part of it. Measured on two cores, 200 schedules: 2 at
	// once 13.5-17.3/s, 3 16.2-19.1/s, 4 19.0-20.6/s, 6 16.4-20.2/s.
	parallel := fs.Int("parallel", min(2*runtime.NumCPU(), 4), "schedules run at once, each on databases of its own (at most 6: each holds about 16 connections of PostgreSQL's 100)")
	outDir := fs.String("out", "outboxlab-scenes", "where shrunk scenes are written")
	noShrink := fs.Bool("no-shrink", false, "report violations without shrinking them")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	fail := func(err error, code int) int {
		fmt.Fprintf(stderr, "outboxlab chaos: %v\n", err)
		return code
	}
	if fs.NArg() > 0 {
		return fail(fmt.Errorf("unexpected argument %q (flags only)", fs.Arg(0)), exitUsage)
	}
	m, err := scenes.ParseMode(*mode)
	if err != nil {
		return fail(fmt.Errorf("--mode %w", err), exitUsage)
	}
	o := chaos.Options{Mode: m, Variant: *variant}
	if *faults != "" {
		o.Faults = fault.Split(*faults)
	}
	if err := o.Check(); err != nil {
		return fail(err, exitUsage)
	}
	if *runs < 1 || *from < 0 || *parallel < 1 {
		return fail(errors.New("--runs and --parallel want 1 or more, --from 0 or more"), exitUsage)
	}
	if *parallel > 6 {
		return fail(fmt.Errorf("--parallel %d: at most 6 (each schedule holds about 16 connections, and PostgreSQL allows 100)", *parallel), exitUsage)
	}

	ctx, cancel := signalContext()
	defer cancel()
	srv, err := pg.Boot(ctx, pf.options(nil))
	if err != nil {
		return fail(err, bootExit(err))
	}
	defer srv.Stop()
	prefix := "chaos"
	if srv.SharedWith != "" || srv.External() {
		// A server outboxlab did not boot here (another outboxlab's, a
		// --database-url): databases of this run's own, dropped at the end.
		prefix = fmt.Sprintf("chaos%d", os.Getpid())
		defer dropChaos(srv, prefix, *parallel)
	}

	progress := progressLine(stderr, *runs)
	start := time.Now()
	outs, err := chaos.Run(ctx, srv, *seed, *from, *from+*runs, *parallel, o, prefix, progress)
	elapsed := time.Since(start)
	if progress != nil {
		fmt.Fprintln(stderr)
	}
	interrupted := errors.Is(err, context.Canceled)
	if err != nil && !interrupted {
		return fail(err, exitFail)
	}
	rep := chaos.Summarize(outs, o, *seed, *from, elapsed)
	rep.Asked, rep.Interrupted = *runs, interrupted
	// One shrunk scene per kind of violation: the first run that shows it.
	seen := map[string]bool{}
	for _, out := range outs {
		for _, v := range out.Violations(o.Mode) {
			f := chaos.Found{Index: out.Index, Violation: v, Replay: replayCommand(*seed, out.Index, o)}
			// A disagreement of the two lease witnesses is no figure an
			// expect line can state: it is reported with its replay only.
			if key := v.Pipeline + v.Figure; !seen[key] && !*noShrink && ctx.Err() == nil && slices.Contains(scenes.Figures, v.Figure) {
				seen[key] = true
				small, got, _, err := chaos.Shrink(ctx, srv, out.Scene, o.Mode, v, prefix+"_shrink")
				if ctx.Err() != nil {
					rep.Interrupted = true
					break
				}
				if err != nil {
					return fail(fmt.Errorf("shrink run %d: %w", out.Index, err), exitFail)
				}
				f.Scene, f.Commands, err = writeShrunk(*outDir, small, got)
				if err != nil {
					return fail(err, exitFail)
				}
				f.Run = fmt.Sprintf("outboxlab run --scenes %s %s", filepath.Dir(f.Scene), strings.TrimSuffix(filepath.Base(f.Scene), scenes.Ext))
			}
			rep.Found = append(rep.Found, f)
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	} else {
		rep.WriteText(stdout)
	}
	if len(rep.Found) > 0 || rep.Interrupted {
		return exitFail // a guarantee broke, or not all ran
	}
	return exitOK
}

// replayCommand runs one schedule alone.
func replayCommand(seed uint64, index int, o chaos.Options) string {
	cmd := fmt.Sprintf("outboxlab chaos --seed %d --from %d --runs 1 --mode %s", seed, index, modeOr(o.Mode))
	if o.Variant != "" {
		cmd += " --variant " + o.Variant
	}
	if o.Faults != nil {
		cmd += " --faults " + fault.Join(o.Faults)
	}
	return cmd
}

func modeOr(m scenes.Mode) scenes.Mode {
	if m == "" {
		return scenes.Compare
	}
	return m
}

// writeShrunk writes a shrunk scene as chaos-SEED-INDEX-FIGURE.scene in
// dir, never over a file; it returns the path and its command count.
func writeShrunk(dir string, sc *scenes.Scene, v chaos.Violation) (string, int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", 0, fmt.Errorf("write the shrunk scene: %w", err)
	}
	name := strings.ReplaceAll(fmt.Sprintf("%s-%s", sc.Name, v.Figure), "_", "-")
	sc.Title = fmt.Sprintf("Chaos found it: %s", v)
	sc.Teaches = "A random schedule shrunk to the commands that still break the guarantee its expect line states."
	text := []byte("# found and shrunk by outboxlab chaos\n" + sc.Text())
	for n := 0; n < 1000; n++ {
		file := name
		if n > 0 {
			file = fmt.Sprintf("%s-%d", name, n)
		}
		path := filepath.Join(dir, file+scenes.Ext)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", 0, fmt.Errorf("write the shrunk scene: %w", err)
		}
		if _, err := f.Write(text); err != nil {
			f.Close()
			return "", 0, fmt.Errorf("write the shrunk scene: %w", err)
		}
		return path, len(sc.Steps), f.Close()
	}
	return "", 0, fmt.Errorf("write the shrunk scene: %s holds 1000 scenes named %s already", dir, name)
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

// dropChaos drops the databases a chaos run made on a server another
// outboxlab owns.
func dropChaos(srv *pg.Server, prefix string, parallel int) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for w := range parallel {
		for _, p := range []string{fmt.Sprintf("%s_%d", prefix, w), prefix + "_shrink"} {
			for _, kind := range []string{"outbox", "naive"} {
				_ = srv.DropDatabase(ctx, p+"_"+kind)
			}
		}
	}
}
