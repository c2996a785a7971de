package cli

import (
	"time"

	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/ui"
	"github.com/spf13/cobra"
)

// newPlay plays a scene or a lesson by itself, with captions, and exits.
func newPlay() *cobra.Command {
	var (
		pf           pgFlags
		sf           sceneFlags
		speed        float64
		hold         time.Duration
		lang, record string
	)
	cmd := &cobra.Command{
		Use:   "play SCENE|LESSON",
		Short: "play a scene or a lesson by itself, with captions, then exit",
		Args:  oneName,
		ValidArgsFunction: func(_ *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return startingWith(prefix, append(sceneNames(sf.dir), lessonNames(lang)...)), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(_ *cobra.Command, args []string) error {
			name := nameOf(args)
			if name == "" {
				return badinput.New("play what? a scene (`outboxlab scenes`) or a lesson (`outboxlab lessons`)")
			}
			if !(speed > 0) {
				return badinput.Errorf("--speed %g: want a number above 0", speed)
			}
			if hold < 0 {
				return badinput.Errorf("--hold %v: want a duration of 0 or more", hold)
			}
			l, err := langFlag(lang)
			if err != nil {
				return err
			}
			opts := ui.Options{PG: pf.options(), ScenesDir: sf.dir, Seed: sf.seed, Mode: sf.mode, Lang: l, Play: true, Speed: speed, Hold: hold, Record: record}
			all, err := scenes.Load(sf.dir)
			if err != nil {
				return badinput.Wrap(err)
			}
			if _, err := scenes.Find(all, name); err == nil {
				opts.Scene = name
			} else if course, lerr := lessons.Load(l); lerr == nil {
				if _, lerr := lessons.Find(course, name); lerr != nil {
					return badinput.Errorf("%q is neither a scene nor a lesson (`outboxlab scenes`, `outboxlab lessons` list them)", name)
				}
				opts.Lesson = name
			}
			ctx, cancel := signalContext()
			defer cancel()
			return ui.Run(ctx, opts)
		},
	}
	fs := cmd.Flags()
	pf.register(fs)
	sf.register(fs)
	fs.Float64Var(&speed, "speed", 1, "play faster (2) or slower (0.5): scales the pauses to read each caption")
	fs.DurationVar(&hold, "hold", 3*time.Second, "keep the last frame on screen this long, \"the end\" said on it, then leave a summary on the normal screen (0: do not hold)")
	fs.StringVar(&lang, "lang", "", "a lesson's language: en or es (default: from LC_ALL or LANG)")
	fs.StringVar(&record, "record", "", "write an asciicast v2 recording of the terminal to this file (.cast)")
	completeFlags(cmd)
	return cmd
}
