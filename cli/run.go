package cli

import (
	"encoding/json"

	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/spf13/cobra"
)

// newRun runs a scene headless: its timeline as it happens, then a summary;
// exit 1 when its expected outcome did not hold.
func newRun() *cobra.Command {
	var (
		pf      pgFlags
		sf      sceneFlags
		variant string
		asJSON  bool
	)
	cmd := &cobra.Command{
		Use:               "run SCENE",
		Short:             "run a scene headless: its timeline, then a summary",
		Long:              "run a scene headless: its timeline, then a summary;\nexit 0 if its expected outcome held, 1 if not, 2 on bad input",
		Args:              oneName,
		ValidArgsFunction: completeScene(&sf.dir),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := sceneOf(args)
			if err != nil {
				return err
			}
			stdout := cmd.OutOrStdout()
			enc := json.NewEncoder(stdout)
			onEntry := func(e sim.Entry) { sim.WriteEntry(stdout, e) }
			if asJSON {
				onEntry = func(e sim.Entry) { _ = enc.Encode(e) }
			}
			res, err := runHeadless("run", name, pf, sf, variant, nil, onEntry)
			if err != nil {
				return err
			}
			if asJSON {
				for _, s := range res.Summaries(variant) {
					_ = enc.Encode(s)
				}
			} else {
				res.Timeline = nil // already printed as it happened
				res.WriteText(stdout)
			}
			if !res.Held {
				return errFailed
			}
			return nil
		},
	}
	fs := cmd.Flags()
	pf.register(fs)
	sf.register(fs)
	fs.StringVar(&variant, "variant", "", "run a variant the scene declares (e.g. select-then-insert)")
	fs.BoolVar(&asJSON, "json", false, "print only JSON: one object per timeline entry, then one summary per pipeline")
	completeFlags(cmd)
	return cmd
}

// runHeadless runs the scene with no screen (sim.RunHeadless) until it ends
// or SIGINT, SIGTERM or SIGHUP; cmd names its databases.
func runHeadless(cmd, name string, pf pgFlags, sf sceneFlags, variant string, check func(scenes.Settings) error, onEntry func(sim.Entry)) (*sim.Result, error) {
	ctx, cancel := signalContext()
	defer cancel()
	return sim.RunHeadless(ctx, sim.Headless{Scene: name, ScenesDir: sf.dir, Mode: sf.mode, Variant: variant, Seed: sf.seed,
		PG: pf.options(), DBPrefix: cmd, Check: check, OnEntry: onEntry})
}
