package chaos

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/outboxlab/outboxlab/engine/fault"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
)

// Hunt is `outboxlab chaos`: schedules to run, and where to write the
// scenes the violations shrink to.
type Hunt struct {
	Options
	Seed                 uint64
	From, Runs, Parallel int
	OutDir               string // where shrunk scenes are written
	NoShrink             bool
	Progress             Progress // nil reports nothing
}

// RunHunt runs h's seeded schedules on srv and summarizes them (also after
// ctx ends, of what ran: the report is then Interrupted), shrinks the first
// run of each kind of violation to a scene and writes it where
// `run --scenes` finds it.
func RunHunt(ctx context.Context, srv *pg.Server, h Hunt) (Report, error) {
	// A server outboxlab did not boot here (another outboxlab's, a
	// --database-url): databases of this run's own, dropped at the end.
	ns := srv.Namespace("chaos", pg.NotBootedHere)
	if ns.Owned() {
		defer dropHunt(srv, ns, h.Parallel)
	}
	prefix := ns.Prefix()
	o := h.Options
	start := time.Now()
	outs, err := Run(ctx, srv, h.Seed, h.From, h.From+h.Runs, h.Parallel, o, prefix, h.Progress)
	elapsed := time.Since(start)
	interrupted := errors.Is(err, context.Canceled)
	if err != nil && !interrupted {
		return Report{}, err
	}
	rep := Summarize(outs, o, h.Seed, h.From, elapsed)
	rep.Asked, rep.Interrupted = h.Runs, interrupted
	// One shrunk scene per kind of violation: the first run that shows it.
	seen := map[string]bool{}
	for _, out := range outs {
		for _, v := range out.Violations(o.Mode) {
			f := Found{Index: out.Index, Violation: v, Replay: ReplayCommand(h.Seed, out.Index, o)}
			// A disagreement of the two lease witnesses is no figure an
			// expect line can state: it is reported with its replay only.
			if key := v.Pipeline + v.Figure; !seen[key] && !h.NoShrink && ctx.Err() == nil && slices.Contains(scenes.Figures, v.Figure) {
				seen[key] = true
				small, got, _, err := Shrink(ctx, srv, out.Scene, o.Mode, v, ns.Sub("shrink").Prefix())
				if ctx.Err() != nil {
					rep.Interrupted = true
					break
				}
				if err != nil {
					return Report{}, fmt.Errorf("shrink run %d: %w", out.Index, err)
				}
				f.Scene, f.Commands, err = WriteShrunk(h.OutDir, small, got)
				if err != nil {
					return Report{}, err
				}
				f.Run = fmt.Sprintf("outboxlab run --scenes %s %s", filepath.Dir(f.Scene), strings.TrimSuffix(filepath.Base(f.Scene), scenes.Ext))
			}
			rep.Found = append(rep.Found, f)
		}
	}
	return rep, nil
}

// ReplayCommand runs one schedule alone.
func ReplayCommand(seed uint64, index int, o Options) string {
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

// WriteShrunk writes a shrunk scene as chaos-SEED-INDEX-FIGURE.scene in
// dir, never over a file; it returns the path and its command count.
func WriteShrunk(dir string, sc *scenes.Scene, v Violation) (string, int, error) {
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

// dropHunt drops the databases a hunt made on a server outboxlab did not
// boot here: each worker's (Run's) and the shrinking's.
func dropHunt(srv *pg.Server, ns pg.Namespace, parallel int) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for w := range parallel {
		_ = WorkerNamespace(ns, w).DropAll(ctx, srv)
	}
	_ = ns.Sub("shrink").DropAll(ctx, srv)
}
