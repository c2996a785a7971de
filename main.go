// Command outboxlab is a terminal simulator of reliable event delivery: it
// boots an embedded PostgreSQL and runs a real transactional outbox, relay,
// broker and inbox against it while the learner pauses, steps and breaks them.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/deploy"
	"github.com/outboxlab/outboxlab/edge"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/httpapi"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/realtime"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/story"
	"github.com/outboxlab/outboxlab/telemetry"
	"github.com/outboxlab/outboxlab/ui"
)

const usage = `outboxlab: learn reliable event delivery (transactional outbox, relay, inbox)
by breaking a real one.

Usage:
  outboxlab [flags]             open the simulator
  outboxlab --lesson NAME [--lang en|es]
                                open a guided lesson (its checks pass as you do its tasks)
  outboxlab lessons [--lang en|es] [--reset [NAME]]
                                list the lessons, done or not; --reset forgets progress
  outboxlab play SCENE|LESSON [--speed X] [--lang en|es] [--record FILE.cast]
                                play a scene or a lesson by itself, with captions, then exit
  outboxlab doctor [flags]      boot the embedded PostgreSQL, report, stop (exit 0 ok,
                                1 it failed, 2 bad flags or no PostgreSQL to use)
  outboxlab serve [flags]       boot PostgreSQL and keep it up (prints its URL for psql) until Ctrl-C;
                                with --http HOST:PORT also a simulation live, in real time, behind
                                its HTTP API (POST /payments, GET /payments/{id}, GET /metrics);
                                --broker nats|nats://HOST:PORT[,…] runs the engine for real on JetStream
                                (--replicas N copies of its stream on a cluster); its database
                                live_outbox and its stream are kept across restarts, --fresh empties them
  outboxlab live [--broker nats|nats://HOST:PORT[,…]] [--replicas N] [--http HOST:PORT] [--lang en|es]
                                the engine running for real on JetStream, live on screen: post
                                payments, crash or stall an actor, stop and start the broker;
                                --http also serves its API, faults and /metrics; kept across
                                restarts like serve --broker's (--fresh empties it)
  outboxlab workshop --ssh HOST:PORT [--http ADDR] [--lang en|es] [--max-learners N]
                [--authorized-keys FILE] [--password PW] [--stuck 10m]
                                serve the simulator and the course over SSH, one per learner
                                (ssh -p PORT NAME@HOST), on one PostgreSQL; this terminal
                                shows the room: each learner's lesson and step, who is stuck
  outboxlab scenes [--scenes DIR]
                                list the scenes, one line each
  outboxlab run SCENE [--mode outbox|naive|compare] [--variant NAME] [--seed N] [--json]
                                run a scene headless: its timeline, then a summary;
                                exit 0 if its expected outcome held, 1 if not, 2 on bad input
  outboxlab story SCENE [--message N|ID] [--pipeline outbox|naive] [--width W] [--mermaid] [--lang en|es]
                                run a scene headless and draw one message's life as a
                                sequence diagram (--mermaid: a Mermaid sequenceDiagram)
  outboxlab chaos [--runs N] [--seed S] [--mode compare|outbox|naive] [--variant NAME]
                [--faults LIST] [--parallel K] [--from I] [--out DIR] [--json]
                                run seeded random fault schedules; print how often the naive
                                write lost or invented events and whether the outbox broke
                                anything; shrink each violation to a scene (exit 1 if any)
  outboxlab version | --version print the version (release, commit, Go, platform)

--record FILE.cast (the simulator, a lesson or play) writes an asciicast v2
recording of the terminal, for asciinema play. The lessons' language defaults
from LC_ALL or LANG.

Flags:
`

// exit codes: 0 ok, 1 the check or scene failed, 2 bad input.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// pgFlags are the database flags every command shares.
type pgFlags struct {
	binDir, dataDir, databaseURL string
	fresh                        bool
}

func (p *pgFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&p.binDir, "pg-bin", "", "PostgreSQL installation to use (a directory with bin/initdb, bin/pg_ctl, bin/postgres); also $"+pg.EnvBinDir)
	fs.StringVar(&p.dataDir, "data-dir", "", "data directory (default: outboxlab/data-<major> in the user cache directory; /var/cache/outboxlab as root)")
	fs.StringVar(&p.databaseURL, "database-url", "", "use this external PostgreSQL instead of booting one (postgres://user:pass@host:port/db)")
	fs.BoolVar(&p.fresh, "fresh", false, "start from initdb: delete the cluster in the data directory first; serve --broker and live also empty the deployment's database (live_outbox, on a --database-url server too) and its stream")
}

func (p *pgFlags) options(progress func(pg.Progress)) pg.Options {
	return pg.Options{BinDir: p.binDir, DataDir: p.dataDir, DatabaseURL: p.databaseURL, Fresh: p.fresh, Progress: progress}
}

// sceneFlags are the flags of every command that runs a scene.
type sceneFlags struct {
	dir, mode string
	seed      uint64
}

func (f *sceneFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.dir, "scenes", "", "also load the scene files (*.scene) in this directory")
	fs.StringVar(&f.mode, "mode", "", "pipelines to run: outbox, naive or compare (default: the scene's)")
	fs.Uint64Var(&f.seed, "seed", 0, "seed for jitter, ids and the scheduler (default: the scene's)")
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		return versionCommand(args[1:], stdout, stderr)
	}
	cmd := ""
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "doctor":
		return doctor(args, stdout, stderr)
	case "serve":
		return serve(args, stdout, stderr)
	case "live":
		return liveScreen(args, stdout, stderr)
	case "scenes":
		return listScenes(args, stdout, stderr)
	case "run":
		return runScene(args, stdout, stderr)
	case "story":
		return tellStory(args, stdout, stderr)
	case "chaos":
		return chaosRun(args, stdout, stderr)
	case "lessons":
		return listLessons(args, stdout, stderr)
	case "play":
		return play(args, stdout, stderr)
	case "workshop":
		return workshopRoom(args, stdout, stderr)
	case "", "sim":
		return simulator(args, stdout, stderr)
	case "version":
		return versionCommand(args, stdout, stderr)
	case "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "outboxlab: unknown command %q\n\n%s", cmd, usage)
		return exitUsage
	}
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags and refuses stray arguments, so a typo is not ignored.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "outboxlab %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return errors.New("unexpected argument")
	}
	return nil
}

// parseNamed parses flags around one NAME argument, which may come before or
// after them (outboxlab run crash-after-publish --json, or --json after it).
// name is "" when none was given; a second argument is an error.
func parseNamed(fs *flag.FlagSet, args []string) (name string, err error) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	if name == "" && fs.NArg() > 0 {
		// Flags, the name, then more flags (`run --scenes DIR NAME --json`).
		name = fs.Arg(0)
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return "", err
		}
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "outboxlab %s: unexpected argument %q\n", fs.Name(), fs.Arg(fs.NArg()-1))
		return "", errors.New("unexpected argument")
	}
	return name, nil
}

// signalContext is cancelled by SIGINT, SIGTERM or SIGHUP, so every path stops
// the server it booted instead of leaving it running.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
}

func doctor(args []string, stdout, stderr io.Writer) int {
	srv, _, stop, code := bootCommand("doctor", args, stdout, stderr)
	if srv == nil {
		fmt.Fprintln(stdout, "not ok")
		return code
	}
	defer stop()
	if err := srv.Stop(); err != nil {
		fmt.Fprintf(stderr, "outboxlab doctor: stop: %v\n", err)
		fmt.Fprintln(stdout, "not ok")
		return exitFail
	}
	fmt.Fprintln(stdout, "ok")
	return exitOK
}

// bootCommand parses a command that takes only the database flags, boots
// PostgreSQL (cancelled by SIGINT, SIGTERM or SIGHUP through ctx) and prints
// the server's facts, one a line. srv is nil when it did not boot; code then
// says why (bad flags, or a boot failure already reported on stderr).
func bootCommand(name string, args []string, stdout, stderr io.Writer) (srv *pg.Server, ctx context.Context, stop context.CancelFunc, code int) {
	fs := newFlagSet(name, stderr)
	var pf pgFlags
	pf.register(fs)
	if err := parse(fs, args); err != nil {
		return nil, nil, nil, exitUsage
	}
	ctx, stop = signalContext()
	srv, err := pg.Boot(ctx, pf.options(nil))
	if err != nil {
		stop()
		fmt.Fprintf(stderr, "outboxlab %s: %v\n", name, err)
		return nil, nil, nil, bootExit(err)
	}
	for _, f := range srv.Facts() {
		fmt.Fprintf(stdout, "%-10s %s\n", f.Name+":", f.Value)
	}
	return srv, ctx, stop, exitOK
}

// simulator opens the terminal UI: it boots PostgreSQL on its boot screen,
// opens a scene and stops the server when the learner quits.
func simulator(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("outboxlab", stderr)
	var pf pgFlags
	pf.register(fs)
	scene := fs.String("scene", "", "scene to open first (default: the first of `outboxlab scenes`)")
	var sf sceneFlags
	sf.register(fs)
	autoplay := fs.Bool("autoplay", false, "start playing the scene instead of paused")
	lesson := fs.String("lesson", "", "open this guided lesson (`outboxlab lessons` lists them)")
	lang := fs.String("lang", "", "the lessons' language: en or es (default: from LC_ALL or LANG)")
	record := fs.String("record", "", "write an asciicast v2 recording of the terminal to this file (.cast)")
	otlp := fs.String("otlp", "", "also send the actors' OpenTelemetry spans to this OTLP/HTTP `ENDPOINT` (host:port, e.g. 127.0.0.1:4318, or a URL)")
	httpAddr := fs.String("http", "", "serve the HTTP API at `HOST:PORT` (no host: loopback): POST /payments as the api actor's work, GET /payments/{id}, GET /metrics")
	if err := parse(fs, args); err != nil {
		return exitUsage
	}
	l, err := langFlag(*lang)
	if err != nil {
		fmt.Fprintf(stderr, "outboxlab: %v\n", err)
		return exitUsage
	}
	if *lesson != "" && (*scene != "" || sf.mode != "") {
		fmt.Fprintln(stderr, "outboxlab: --lesson runs on its own scene and mode: leave out --scene and --mode")
		return exitUsage
	}
	ctx, cancel := signalContext()
	defer cancel()
	return uiExit("outboxlab", ui.Run(ctx, ui.Options{PG: pf.options(nil), ScenesDir: sf.dir, Scene: *scene, Seed: sf.seed, Mode: sf.mode,
		Autoplay: *autoplay, Lesson: *lesson, Lang: l, Record: *record, HTTP: *httpAddr, OTLP: *otlp}), stderr)
}

// uiExit reports ui.Run's error: bad input exits 2, anything else 1.
func uiExit(who string, err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "%s: %v\n", who, err)
	if badinput.Is(err) {
		return exitUsage
	}
	return exitFail
}

// langFlag is --lang, or the language LC_ALL or LANG name.
func langFlag(v string) (string, error) {
	if v == "" {
		return lessons.Lang(os.Getenv("LANG"), os.Getenv("LC_ALL")), nil
	}
	l, err := lessons.ParseLang(v)
	if err != nil {
		return "", fmt.Errorf("--lang: %w", err)
	}
	return l, nil
}

// listLessons prints every lesson, in course order, done or not; with
// --reset it forgets the progress of one lesson (or of all) first.
func listLessons(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("lessons", stderr)
	lang := fs.String("lang", "", "the lessons' language: en or es (default: from LC_ALL or LANG)")
	reset := fs.Bool("reset", false, "forget the progress of the lesson named after it, or of every lesson")
	// --reset takes an optional NAME: a word after the flags.
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	var names []string
	if fs.NArg() > 0 {
		if !*reset {
			fmt.Fprintf(stderr, "outboxlab lessons: unexpected argument %q (--reset NAME forgets one lesson)\n", fs.Arg(0))
			return exitUsage
		}
		names = fs.Args()
	}
	l, err := langFlag(*lang)
	if err != nil {
		fmt.Fprintf(stderr, "outboxlab lessons: %v\n", err)
		return exitUsage
	}
	all, err := lessons.Load(l)
	if err != nil {
		fmt.Fprintf(stderr, "outboxlab lessons: %v\n", err)
		return exitFail
	}
	for _, n := range names {
		if _, err := lessons.Find(all, n); err != nil {
			fmt.Fprintf(stderr, "outboxlab lessons: %v\n", err)
			return exitUsage
		}
	}
	p, err := lessons.LoadProgress("")
	if err != nil {
		fmt.Fprintf(stderr, "outboxlab lessons: %v\n", err)
		return exitFail
	}
	if *reset {
		p.Reset(names...)
		if err := p.Save(); err != nil {
			fmt.Fprintf(stderr, "outboxlab lessons: %v\n", err)
			return exitFail
		}
		if len(names) == 0 {
			fmt.Fprintln(stdout, "progress reset for every lesson")
		} else {
			fmt.Fprintf(stdout, "progress reset for %s\n", strings.Join(names, ", "))
		}
		return exitOK
	}
	done := 0
	for i, ls := range all {
		mark := "[ ]"
		state := fmt.Sprintf("%d/%d steps", p.Steps(ls.Name), len(ls.Steps))
		if p.Done(ls.Name) {
			mark, state, done = "[x]", "done", done+1
		}
		fmt.Fprintf(stdout, "%2d %s %-11s %-10s %s\n", i+1, mark, ls.Name, state, ls.Title)
	}
	fmt.Fprintf(stdout, "%d of %d done · outboxlab --lesson NAME opens one · progress: %s\n", done, len(all), p.Path())
	return exitOK
}

// play plays a scene or a lesson by itself, with captions, and exits.
func play(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("play", stderr)
	var pf pgFlags
	pf.register(fs)
	var sf sceneFlags
	sf.register(fs)
	speed := fs.Float64("speed", 1, "play faster (2) or slower (0.5): scales the pauses to read each caption")
	lang := fs.String("lang", "", "a lesson's language: en or es (default: from LC_ALL or LANG)")
	record := fs.String("record", "", "write an asciicast v2 recording of the terminal to this file (.cast)")
	name, err := parseNamed(fs, args)
	if err != nil {
		return exitUsage
	}
	if name == "" {
		fmt.Fprintln(stderr, "outboxlab play: play what? a scene (`outboxlab scenes`) or a lesson (`outboxlab lessons`)")
		return exitUsage
	}
	if !(*speed > 0) {
		fmt.Fprintf(stderr, "outboxlab play: --speed %g: want a number above 0\n", *speed)
		return exitUsage
	}
	l, err := langFlag(*lang)
	if err != nil {
		fmt.Fprintf(stderr, "outboxlab play: %v\n", err)
		return exitUsage
	}
	opts := ui.Options{PG: pf.options(nil), ScenesDir: sf.dir, Seed: sf.seed, Mode: sf.mode, Lang: l, Play: true, Speed: *speed, Record: *record}
	all, err := scenes.Load(sf.dir)
	if err != nil {
		fmt.Fprintf(stderr, "outboxlab play: %v\n", err)
		return exitUsage
	}
	if _, err := scenes.Find(all, name); err == nil {
		opts.Scene = name
	} else if course, lerr := lessons.Load(l); lerr == nil {
		if _, lerr := lessons.Find(course, name); lerr != nil {
			fmt.Fprintf(stderr, "outboxlab play: %q is neither a scene nor a lesson (`outboxlab scenes`, `outboxlab lessons` list them)\n", name)
			return exitUsage
		}
		opts.Lesson = name
	}
	ctx, cancel := signalContext()
	defer cancel()
	return uiExit("outboxlab play", ui.Run(ctx, opts), stderr)
}

func listScenes(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("scenes", stderr)
	dir := fs.String("scenes", "", "also load the scene files (*.scene) in this directory")
	if err := parse(fs, args); err != nil {
		return exitUsage
	}
	all, err := scenes.Load(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "outboxlab scenes: %v\n", err)
		return exitUsage
	}
	for _, sc := range all {
		fmt.Fprintf(stdout, "%-22s %s\n", sc.Name, sc.Title)
	}
	return exitOK
}

func runScene(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("run", stderr)
	var pf pgFlags
	pf.register(fs)
	var sf sceneFlags
	sf.register(fs)
	variant := fs.String("variant", "", "run a variant the scene declares (e.g. select-then-insert)")
	asJSON := fs.Bool("json", false, "print only JSON: one object per timeline entry, then one summary per pipeline")
	name, err := parseNamed(fs, args)
	if err != nil {
		return exitUsage
	}
	if name == "" {
		fmt.Fprintln(stderr, "outboxlab run: which scene? `outboxlab scenes` lists them")
		return exitUsage
	}
	enc := json.NewEncoder(stdout)
	onEntry := func(e sim.Entry) { sim.WriteEntry(stdout, e) }
	if *asJSON {
		onEntry = func(e sim.Entry) { _ = enc.Encode(e) }
	}
	res, code := headless(headlessRun{cmd: "run", scene: name, pg: pf, sf: sf, variant: *variant, onEntry: onEntry}, stderr)
	if res == nil {
		return code
	}
	if *asJSON {
		for _, s := range res.Summaries(*variant) {
			_ = enc.Encode(s)
		}
	} else {
		res.Timeline = nil // already printed as it happened
		res.WriteText(stdout)
	}
	if !res.Held {
		return exitFail
	}
	return exitOK
}

// tellStory runs a scene headless and draws one message's life: every
// statement, publish, delivery and crash that concerned it.
func tellStory(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("story", stderr)
	var pf pgFlags
	pf.register(fs)
	var sf sceneFlags
	sf.register(fs)
	variant := fs.String("variant", "", "run a variant the scene declares (e.g. select-then-insert)")
	message := fs.String("message", "1", "the message: its number N in order of first appearance, or its id (a prefix, or its last 8 hex digits as the screen shows them)")
	pipeline := fs.String("pipeline", "", "in compare mode, whose story: outbox or naive (default: outbox)")
	width := fs.Int("width", 120, "draw the diagram this many columns wide (40 or more)")
	mermaid := fs.Bool("mermaid", false, "print a Mermaid sequenceDiagram instead, for slides")
	lang := fs.String("lang", "", "the diagram's language: en or es (default: from LC_ALL or LANG)")
	name, err := parseNamed(fs, args)
	if err != nil {
		return exitUsage
	}
	if name == "" {
		fmt.Fprintln(stderr, "outboxlab story: which scene? `outboxlab scenes` lists them")
		return exitUsage
	}
	l, err := langFlag(*lang)
	if err != nil {
		fmt.Fprintf(stderr, "outboxlab story: %v\n", err)
		return exitUsage
	}
	words := catalog.For(l)
	switch {
	case *pipeline != "" && *pipeline != "outbox" && *pipeline != "naive":
		fmt.Fprintf(stderr, "outboxlab story: --pipeline %q: want outbox or naive\n", *pipeline)
		return exitUsage
	case *width < 40:
		fmt.Fprintf(stderr, "outboxlab story: --width %d: want 40 or more\n", *width)
		return exitUsage
	case strings.TrimSpace(*message) == "":
		fmt.Fprintln(stderr, "outboxlab story: --message is empty: give a number (1 is the first message) or an id")
		return exitUsage
	}
	check := func(set scenes.Settings) error {
		if *pipeline != "" && !slices.Contains(set.Pipelines(), *pipeline) {
			return fmt.Errorf("--pipeline %s: scene %s runs in %s mode, which has no %s pipeline (--mode compare runs both)", *pipeline, name, set.Mode, *pipeline)
		}
		return nil
	}
	res, code := headless(headlessRun{cmd: "story", scene: name, pg: pf, sf: sf, variant: *variant, check: check}, stderr)
	if res == nil {
		return code
	}
	st, err := story.Build(res.Timeline, *pipeline, *message)
	if err != nil {
		fmt.Fprintf(stderr, "outboxlab story: %v\n", err)
		if badinput.Is(err) {
			return exitUsage
		}
		return exitFail
	}
	if *mermaid {
		fmt.Fprint(stdout, story.MermaidIn(st, words))
		return exitOK
	}
	// The seed as it is: the catalog's printer would group its digits.
	fmt.Fprintln(stdout, words.T("scene %s  seed %s", res.Scene.Name, fmt.Sprint(res.Seed)))
	fmt.Fprint(stdout, story.RenderIn(st, *width, words))
	return exitOK
}

// headlessRun is a scene to run with no screen, as run and story do.
type headlessRun struct {
	cmd, scene string // the command (for its messages) and the scene's name
	pg         pgFlags
	sf         sceneFlags
	variant    string
	// check, when set, refuses settings the command cannot use, before
	// anything boots.
	check   func(scenes.Settings) error
	onEntry func(sim.Entry)
}

// headless checks the scene and the flags before anything boots, boots
// PostgreSQL, runs the scene on fresh databases and stops the server. res is
// nil when it could not run; code then says why, already reported on stderr:
// 2 for bad input, 1 for a failure.
func headless(h headlessRun, stderr io.Writer) (res *sim.Result, code int) {
	fail := func(err error, code int) (*sim.Result, int) {
		fmt.Fprintf(stderr, "outboxlab %s: %v\n", h.cmd, err)
		return nil, code
	}
	if _, err := scenes.ParseMode(h.sf.mode); err != nil {
		return fail(fmt.Errorf("--mode %w", err), exitUsage)
	}
	all, err := scenes.Load(h.sf.dir)
	if err != nil {
		return fail(err, exitUsage)
	}
	sc, err := scenes.Find(all, h.scene)
	if err != nil {
		return fail(err, exitUsage)
	}
	opts := sim.RunOptions{Mode: h.sf.mode, Variant: h.variant, Seed: h.sf.seed, DBPrefix: h.cmd, OnEntry: h.onEntry}
	set, err := opts.Settings(sc)
	if err != nil {
		return fail(err, exitUsage)
	}
	// Refused before anything boots: the scene cannot run as written.
	if err := sim.CheckScene(sc, set, h.pg.databaseURL != ""); err != nil {
		return fail(err, exitUsage)
	}
	if h.check != nil {
		if err := h.check(set); err != nil {
			return fail(err, exitUsage)
		}
	}
	ctx, cancel := signalContext()
	defer cancel()
	srv, err := pg.Boot(ctx, h.pg.options(nil))
	if err != nil {
		return fail(err, bootExit(err))
	}
	defer srv.Stop()
	if srv.SharedWith != "" {
		// Another outboxlab owns the server: databases of this run's own.
		opts.DBPrefix = fmt.Sprintf("%s%d", h.cmd, os.Getpid())
		defer func() {
			for _, kind := range set.Pipelines() {
				_ = srv.DropDatabase(context.Background(), opts.DBPrefix+"_"+kind)
			}
		}()
	}
	res, err = sim.RunScene(ctx, srv, sc, opts)
	if err != nil {
		var script *sim.ScriptError
		if errors.As(err, &script) || errors.Is(err, engine.ErrWALLevel) {
			// A relay: cdc scene on a --database-url server without
			// wal_level = logical: what the user pointed at must change.
			return fail(err, exitUsage)
		}
		return fail(err, exitFail)
	}
	return res, exitOK
}

// bootExit is the exit code of a failed boot: 2 when the flags point at
// something unusable (a directory that is not PostgreSQL's, a --database-url
// that does not answer), 1 when the machine failed.
func bootExit(err error) int {
	if badinput.Is(err) {
		return exitUsage
	}
	return exitFail
}

// serve keeps the server up for a look with psql, and stops it cleanly on
// SIGINT, SIGTERM or SIGHUP.
func serve(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", stderr)
	var pf pgFlags
	pf.register(fs)
	httpAddr := fs.String("http", "", "also run a simulation live, in real time, and serve its HTTP API at `HOST:PORT` (no host: loopback): POST /payments, GET /payments/{id}, GET /metrics")
	scene := fs.String("scene", "two-consumers", "with --http: the scene whose settings the live simulation runs (its actors; never its script)")
	var sf sceneFlags
	sf.register(fs)
	otlp := fs.String("otlp", "", "with --http: send the actors' OpenTelemetry spans to this OTLP/HTTP `ENDPOINT`")
	brokerFlag := fs.String("broker", "inprocess", "with --http: `inprocess` (the simulator's broker, virtual clock), nats (JetStream embedded, store under the data dir) or nats://HOST:PORT[,nats://HOST:PORT…] (a server or a cluster); with JetStream the engine runs for real, in real time, and keeps its database and stream across restarts (--fresh empties both)")
	replicas := fs.Int("replicas", 0, "with --broker nats://…: how many servers hold a copy of the stream, `N` 1 to 5 (default: 3 on a cluster of three servers or more, else 1); a stream with another count is updated in place")
	if err := parse(fs, args); err != nil {
		return exitUsage
	}
	fail := func(err error, code int) int {
		fmt.Fprintf(stderr, "outboxlab serve: %v\n", err)
		return code
	}
	broker, err := deploy.ParseBroker(*brokerFlag)
	if err != nil {
		return fail(err, exitUsage)
	}
	df := deployFlags{broker: broker, replicas: *replicas, fresh: pf.fresh}
	if *replicas != 0 && broker.Kind == deploy.BrokerInProcess {
		return fail(errors.New("--replicas goes with a JetStream broker (--broker nats://…): the in-process broker has no stream"), exitUsage)
	}
	if err := df.checkReplicas(); err != nil {
		return fail(err, exitUsage)
	}
	var set scenes.Settings
	var e *httpapi.Listener
	if *httpAddr != "" {
		// Bad input is said before anything boots: the scene, the mode, the
		// address (a port in use), the collector's endpoint.
		all, err := scenes.Load(sf.dir)
		if err != nil {
			return fail(err, exitUsage)
		}
		sc, err := scenes.Find(all, *scene)
		if err != nil {
			return fail(err, exitUsage)
		}
		set = sc.Settings
		if sf.mode != "" {
			mode, err := scenes.ParseMode(sf.mode)
			if err != nil {
				return fail(fmt.Errorf("--mode %w", err), exitUsage)
			}
			set.Mode = mode
		}
		if broker.Kind != deploy.BrokerInProcess && (set.Mode != scenes.Outbox || *otlp != "") {
			return fail(fmt.Errorf("--broker %s runs the outbox pipeline for real, without the simulator: --mode %s and --otlp go with --broker inprocess", *brokerFlag, set.Mode), exitUsage)
		}
		if err := deploy.Probe(broker); err != nil {
			return fail(err, exitUsage)
		}
		if e, err = httpapi.Listen(*httpAddr); err != nil {
			return fail(err, exitUsage)
		}
		defer e.Close()
	} else if *otlp != "" || sf.mode != "" || broker.Kind != deploy.BrokerInProcess {
		return fail(errors.New("--otlp, --mode and --broker go with --http: without it serve only keeps PostgreSQL up"), exitUsage)
	}
	ctx, stop := signalContext()
	defer stop()
	srv, err := pg.Boot(ctx, pf.options(nil))
	if err != nil {
		return fail(err, bootExit(err))
	}
	for _, f := range srv.Facts() {
		fmt.Fprintf(stdout, "%-10s %s\n", f.Name+":", f.Value)
	}
	if e == nil {
		fmt.Fprintf(stdout, "%-10s %s\n", "url:", srv.URL())
		// The simulator's tables are in databases of their own, one per
		// pipeline, as its last session left them.
		for _, kind := range []string{"outbox", "naive"} {
			fmt.Fprintf(stdout, "%-10s psql '%s'\n", kind+":", srv.DatabaseURL(ui.DefaultDBPrefix+"_"+kind))
		}
		fmt.Fprintln(stdout, "serving; Ctrl-C stops the server")
		<-ctx.Done()
	} else if broker.Kind != deploy.BrokerInProcess {
		if code := serveDeployed(ctx, srv, e, set, df, stdout, stderr); code != exitOK {
			_ = srv.Stop()
			return code
		}
	} else if code := serveLive(ctx, srv, edge.On(e), set, sf.seed, *otlp, stdout, stderr); code != exitOK {
		_ = srv.Stop()
		return code
	}
	if err := srv.Stop(); err != nil {
		return fail(fmt.Errorf("stop: %w", err), exitFail)
	}
	fmt.Fprintln(stdout, "stopped")
	return exitOK
}

// serveSimPrefix names the databases of serve --http's simulation in real
// time (serve_outbox, serve_naive).
const serveSimPrefix = "serve"

// serveLive runs a simulation of set in real time behind e until ctx ends.
func serveLive(ctx context.Context, srv *pg.Server, e *edge.Edge, set scenes.Settings, seed uint64, otlp string, stdout, stderr io.Writer) int {
	// Its own databases: a simulation resets them at start, and live_outbox
	// is the deployment's (serve --broker, live), which a restart keeps.
	prefix := serveSimPrefix
	if srv.SharedWith != "" || srv.External() {
		prefix = fmt.Sprintf("%s%d", serveSimPrefix, os.Getpid()) // a server outboxlab did not boot here: databases of this run's own
		defer func() {
			dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			for _, kind := range set.Pipelines() {
				_ = srv.DropDatabase(dctx, prefix+"_"+kind)
			}
		}()
	}
	opts := realtime.Options{Server: srv, Settings: set, Seed: seed, DBPrefix: prefix, Edge: e}
	if otlp != "" {
		exp, err := telemetry.NewOTLPExporter(ctx, otlp, func(err error) { fmt.Fprintf(stderr, "outboxlab serve: otlp: %v\n", err) })
		if err != nil {
			fmt.Fprintf(stderr, "outboxlab serve: --otlp %s: %v\n", otlp, err)
			return exitUsage
		}
		tp := telemetry.NewTracerProvider(telemetry.TracingConfig{Exporter: exp})
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			_ = tp.Shutdown(sctx)
		}()
		opts.Tracing = sim.Tracing{Provider: tp}
	}
	// The payments are in the pipelines' databases, not the server's
	// outboxlab database (empty here).
	for _, kind := range set.Pipelines() {
		fmt.Fprintf(stdout, "%-10s psql '%s'\n", kind+":", srv.DatabaseURL(prefix+"_"+kind))
	}
	fmt.Fprintf(stdout, "%-10s http://%s (mode %s: the api answers at once; the relay and consumers run as time passes)\n", "api:", e.Addr, set.Mode)
	for _, c := range e.Curl() {
		lead := "try:"
		if strings.HasPrefix(c, " ") {
			lead = "" // a continuation of the command above
		}
		fmt.Fprintf(stdout, "%-10s %s\n", lead, c)
	}
	// The same faults API as serve --broker's, so the README's exercise
	// (stall a consumer, watch the backlog on /metrics) needs no TUI.
	fmt.Fprintf(stdout, "%-10s curl -X POST %s/faults/crash/relay-1   (also: /faults/stall/accounting?for=45s, /faults/broker/stop, /faults/broker/start)\n", "faults:", e.Addr)
	fmt.Fprintln(stdout, "serving; Ctrl-C stops")
	if err := realtime.Run(ctx, opts); err != nil {
		fmt.Fprintf(stderr, "outboxlab serve: %v\n", err)
		return exitFail
	}
	return exitOK
}
