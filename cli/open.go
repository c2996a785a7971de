package cli

import (
	"fmt"

	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/ui"
	"github.com/spf13/cobra"
)

// newOpen is the root command (and its hidden twin `sim`): the terminal UI.
// It boots PostgreSQL on its boot screen, opens a scene or a lesson and
// stops the server when the learner quits.
func newOpen(use string) *cobra.Command {
	var (
		pf                                          pgFlags
		sf                                          sceneFlags
		scene, lesson, lang, record, otlp, httpAddr string
		autoplay, version                           bool
	)
	cmd := &cobra.Command{
		Use:   use,
		Short: "open the simulator",
		Long:  "open the simulator; --lesson NAME opens a guided lesson (its checks pass as you do its tasks)",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			if version {
				return usage(fmt.Errorf("unexpected argument %q (it takes none)", args[0]))
			}
			err := fmt.Errorf("unknown command %q", args[0])
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				err = fmt.Errorf("unknown command %q (did you mean %s?)", args[0], s[0])
			}
			return usage(err)
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if version {
				return printVersion(cmd.OutOrStdout())
			}
			l, err := langFlag(lang)
			if err != nil {
				return err
			}
			if lesson != "" && (scene != "" || sf.mode != "") {
				return badinput.New("--lesson runs on its own scene and mode: leave out --scene and --mode")
			}
			ctx, cancel := signalContext()
			defer cancel()
			return ui.Run(ctx, ui.Options{PG: pf.options(), ScenesDir: sf.dir, Scene: scene, Seed: sf.seed, Mode: sf.mode,
				Autoplay: autoplay, Lesson: lesson, Lang: l, Record: record, HTTP: httpAddr, OTLP: otlp})
		},
	}
	fs := cmd.Flags()
	pf.register(fs)
	fs.StringVar(&scene, "scene", "", "the scene `NAME` to open first (default: the first of outboxlab scenes)")
	sf.register(fs)
	fs.BoolVar(&autoplay, "autoplay", false, "start playing the scene instead of paused")
	fs.StringVar(&lesson, "lesson", "", "open the guided lesson `NAME` (outboxlab lessons lists them)")
	fs.StringVar(&lang, "lang", "", "the lessons' language: en or es (default: from LC_ALL or LANG)")
	fs.StringVar(&record, "record", "", "write an asciicast v2 recording of the terminal to this file (.cast)")
	fs.StringVar(&otlp, "otlp", "", "also send the actors' OpenTelemetry spans to this OTLP/HTTP `ENDPOINT` (host:port, e.g. 127.0.0.1:4318, or a URL)")
	fs.StringVar(&httpAddr, "http", "", "serve the HTTP API at `HOST:PORT` (no host: loopback): POST /payments as the api actor's work, GET /payments/{id}, GET /metrics")
	if use != "sim" {
		fs.BoolVar(&version, "version", false, "print the version (release, commit, Go, platform) and exit")
	}
	completeFlags(cmd)
	return cmd
}
