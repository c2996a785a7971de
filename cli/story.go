package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/story"
	"github.com/spf13/cobra"
)

// newStory runs a scene headless and draws one message's life: every
// statement, publish, delivery and crash that concerned it.
func newStory() *cobra.Command {
	var (
		pf                               pgFlags
		sf                               sceneFlags
		variant, message, pipeline, lang string
		width                            int
		mermaid                          bool
	)
	cmd := &cobra.Command{
		Use:               "story SCENE",
		Short:             "draw one message's life in a scene as a sequence diagram",
		Long:              "run a scene headless and draw one message's life as a\nsequence diagram (--mermaid: a Mermaid sequenceDiagram)",
		Args:              oneName,
		ValidArgsFunction: completeScene(&sf.dir),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := sceneOf(args)
			if err != nil {
				return err
			}
			l, err := langFlag(lang)
			if err != nil {
				return err
			}
			words := catalog.For(l)
			switch {
			case pipeline != "" && pipeline != "outbox" && pipeline != "naive":
				return badinput.Errorf("--pipeline %q: want outbox or naive", pipeline)
			case width < 40:
				return badinput.Errorf("--width %d: want 40 or more", width)
			case strings.TrimSpace(message) == "":
				return badinput.New("--message is empty: give a number (1 is the first message) or an id")
			}
			check := func(set scenes.Settings) error {
				if pipeline != "" && !slices.Contains(set.Pipelines(), pipeline) {
					return fmt.Errorf("--pipeline %s: scene %s runs in %s mode, which has no %s pipeline (--mode compare runs both)", pipeline, name, set.Mode, pipeline)
				}
				return nil
			}
			res, err := runHeadless("story", name, pf, sf, variant, check, nil)
			if err != nil {
				return err
			}
			st, err := story.Build(res.Timeline, pipeline, message)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if mermaid {
				fmt.Fprint(out, story.MermaidIn(st, words))
				return nil
			}
			// The seed as it is: the catalog's printer would group its digits.
			fmt.Fprintln(out, words.T("scene %s  seed %s", res.Scene.Name, fmt.Sprint(res.Seed)))
			fmt.Fprint(out, story.RenderIn(st, width, words))
			return nil
		},
	}
	fs := cmd.Flags()
	pf.register(fs)
	sf.register(fs)
	fs.StringVar(&variant, "variant", "", "run a variant the scene declares (e.g. select-then-insert)")
	fs.StringVar(&message, "message", "1", "the message: its number N in order of first appearance, or its id (a prefix, or its last 8 hex digits as the screen shows them)")
	fs.StringVar(&pipeline, "pipeline", "", "in compare mode, whose story: outbox or naive (default: outbox)")
	fs.IntVar(&width, "width", 120, "draw the diagram this many columns wide (40 or more)")
	fs.BoolVar(&mermaid, "mermaid", false, "print a Mermaid sequenceDiagram instead, for slides")
	fs.StringVar(&lang, "lang", "", "the diagram's language: en or es (default: from LC_ALL or LANG)")
	completeFlags(cmd)
	return cmd
}
