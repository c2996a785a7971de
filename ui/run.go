package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/outboxlab/outboxlab/screen/quit"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"
	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/simhttp"
	"github.com/outboxlab/outboxlab/ui/cast"
)

// Options say what the TUI boots and opens.
type Options struct {
	// PG says how to boot PostgreSQL (its Progress, if set, is called too).
	PG pg.Options
	// ScenesDir adds scenes to the built-in ones ("" for the built-ins only).
	ScenesDir string
	// Scene is the scene opened first; "" opens the first in teaching order.
	Scene string
	// Seed replays a run; 0 keeps the scene's seed.
	Seed uint64
	// Mode overrides the scene's mode: "", "outbox", "naive" or "compare".
	Mode string
	// DBPrefix names the simulation's databases; default DefaultDBPrefix.
	DBPrefix string
	// Autoplay starts the scene running instead of paused.
	Autoplay bool

	// Lesson opens a guided lesson by name (its scene's settings, never its
	// script); "" opens Scene as before.
	Lesson string
	// Lang is the lessons' language, en or es ("" = en).
	Lang string
	// ProgressPath is where the learner's progress is kept ("" =
	// lessons.ProgressPath()).
	ProgressPath string

	// Play plays Scene (its script) or Lesson (each step's solution, its
	// why, the quiz answered) by itself with captions, pausing to let each
	// caption be read, and quits at the end.
	Play bool
	// Speed scales play's pauses: 2 is twice as fast ("" or 0 = 1).
	Speed float64
	// Hold keeps play's last frame on screen this long once the last
	// caption has been read, "the end" said on it (0 = not at all).
	Hold time.Duration

	// Record writes an asciicast v2 recording of the terminal output to
	// this file ("" = none).
	Record string

	// HTTP serves the simulator's HTTP API at this address (HOST:PORT; no
	// host: loopback): POST /payments as the api actor's work, GET
	// /payments/{id}, GET /metrics. "" = none; play takes none.
	HTTP string
	// OTLP sends the actors' spans to a collector's OTLP/HTTP endpoint
	// (host:port or a URL); "" = none (the story pane shows them anyway).
	OTLP string

	// Step opens Lesson at this step (from 0) instead of its first: a
	// workshop's learner who reconnects resumes there, from the latest
	// step at or before it that starts on a fresh simulator.
	Step int
	// NoRestartPG, when set, refuses restart-postgres (R) with this reason,
	// in the learner's language: a workshop's PostgreSQL is the room's.
	NoRestartPG string
	// NoPSQL leaves out the psql commands of the help: the databases are
	// on a server the user has no terminal to reach (a workshop's learner).
	NoPSQL bool
}

// DefaultDBPrefix names the simulator's databases: tui_outbox, tui_naive.
const DefaultDBPrefix = "tui"

// loadScenes reads the scenes and finds the one to open first.
func loadScenes(opts Options) ([]*scenes.Scene, *scenes.Scene, error) {
	if _, err := scenes.ParseMode(opts.Mode); err != nil {
		return nil, nil, badinput.Errorf("--mode %w", err)
	}
	all, err := scenes.Load(opts.ScenesDir)
	if err != nil {
		return nil, nil, badinput.Wrap(err)
	}
	if len(all) == 0 {
		return nil, nil, badinput.New("no scenes to open")
	}
	sc := all[0]
	if opts.Scene != "" {
		if sc, err = scenes.Find(all, opts.Scene); err != nil {
			return nil, nil, badinput.Wrap(err)
		}
	}
	return all, sc, nil
}

// loadCourse reads the lessons in opts.Lang and finds opts.Lesson; the
// scene it opens on is the lesson's. Without a lesson it returns nils.
func loadCourse(opts Options, all []*scenes.Scene) ([]*lessons.Lesson, *lessons.Lesson, *scenes.Scene, error) {
	if opts.Lesson == "" {
		return nil, nil, nil, nil
	}
	lang := opts.Lang
	if lang == "" {
		lang = "en"
	}
	lang, err := lessons.ParseLang(lang)
	if err != nil {
		return nil, nil, nil, badinput.Errorf("--lang: %w", err)
	}
	course, err := lessons.Load(lang)
	if err != nil {
		return nil, nil, nil, badinput.Wrap(err)
	}
	l, err := lessons.Find(course, opts.Lesson)
	if err != nil {
		return nil, nil, nil, badinput.Errorf("%w; `outboxlab lessons` lists them", err)
	}
	sc, err := scenes.Find(all, l.Scene)
	if err != nil {
		return nil, nil, nil, badinput.Errorf("lesson %s: %w", l.Name, err)
	}
	return course, l, sc, nil
}

// setup loads what opts name and builds the root model.
func setup(ctx context.Context, opts Options, res *resources) (Model, error) {
	all, sc, err := loadScenes(opts)
	if err != nil {
		return Model{}, err
	}
	course, l, lsc, err := loadCourse(opts, all)
	if err != nil {
		return Model{}, err
	}
	if lsc != nil {
		sc = lsc
	}
	if opts.Speed < 0 {
		return Model{}, badinput.Errorf("--speed %g: want a positive number", opts.Speed)
	}
	m := newModel(ctx, opts, all, sc, res)
	tr, err := newTracing(ctx, opts.OTLP)
	if err != nil {
		return Model{}, err
	}
	m.tracing, res.tracing = tr, tr
	if l != nil {
		// Progress is the learner's own: a played lesson does not count.
		m.learnCourse(course)
		m.openLesson(l)
		if opts.Step > 0 {
			m.lesson.StartStep(resumeStep(l, opts.Step))
		}
	}
	return m, nil
}

// Run opens the simulator on the terminal: the boot screen at once while
// PostgreSQL boots, then the scene. It returns when the learner quits (or on
// SIGTERM/SIGHUP, or when ctx ends), after closing the simulation and
// stopping the server it booted. A boot failure is shown on screen and
// returned.
func Run(ctx context.Context, opts Options) (runErr error) {
	if opts.DBPrefix == "" {
		opts.DBPrefix = DefaultDBPrefix
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	res := newResources()
	m, err := setup(ctx, opts, res)
	if err != nil {
		return err
	}
	res.bootDone = make(chan struct{})
	if opts.HTTP != "" {
		if opts.Play {
			return badinput.New("--http: play plays by itself and takes no requests; use it with the simulator or a lesson")
		}
		e, err := listenHTTP(opts.HTTP)
		if err != nil {
			return err
		}
		m.http = e
		defer e.Close()
	}

	// Last of the bad input, after the flags and the lesson named were
	// checked: a mistake there is the one to say first.
	if !opts.Play {
		if err := needTerminal(); err != nil {
			return err
		}
	}
	// 30 frames a second is plenty for a stepped simulation and halves the
	// renderer's idle wake-ups.
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler(), tea.WithFPS(30)}
	out := headlessOutput(opts)
	popts = append(popts, out.options...)
	var rec *cast.Recorder
	if opts.Record != "" {
		rec, err = cast.Start(opts.Record, os.Stdout, time.Now(), out.cast)
		if err != nil {
			return err
		}
		defer func() {
			if err := rec.Finish(); err != nil && runErr == nil {
				runErr = err
			}
		}()
		// The recorder sees what the terminal sees, and each resize.
		popts = append(popts, tea.WithOutput(rec), tea.WithFilter(func(_ tea.Model, msg tea.Msg) tea.Msg {
			if ws, ok := msg.(tea.WindowSizeMsg); ok {
				rec.Resize(ws.Width, ws.Height)
			}
			return msg
		}))
	}
	p := tea.NewProgram(m, popts...)
	if m.http != nil {
		m.http.Serve(func(r simhttp.Request) { p.Send(httpRequestMsg(r)) }, nil)
	}
	defer quit.OnSignal(ctx, p)()

	// The terminal keeps the window title it had: Bubble Tea sets an empty
	// one as it ends.
	restoreTitle := term.IsTerminal(os.Stdout.Fd())
	if restoreTitle {
		_, _ = os.Stdout.WriteString(pushTitle)
	}
	final, runErr := p.Run()
	if restoreTitle {
		_, _ = os.Stdout.WriteString(popTitle)
	}
	if fm, ok := final.(Model); ok {
		printSummary(&fm, rec, out.profile)
	}
	// Stop whatever is still running: a boot in progress is cancelled and
	// waited for, so the server it may have started is stopped too.
	cancel()
	res.mu.Lock()
	res.ended = true
	booting := res.booting
	res.mu.Unlock()
	if booting {
		select {
		case <-res.bootDone:
		case <-time.After(2 * time.Minute):
		}
	}
	stopErr := res.shutdown()

	if fm, ok := final.(Model); ok && fm.phase == phaseBootFailed && fm.err != nil {
		return fm.err
	} else if pp := fm.playPage(); ok && pp != nil && pp.failed() != nil {
		return pp.failed()
	}
	if runErr != nil && (errors.Is(runErr, tea.ErrProgramPanic) || !errors.Is(runErr, tea.ErrProgramKilled) && !errors.Is(runErr, tea.ErrInterrupted)) {
		return runErr
	}
	if stopErr != nil {
		return fmt.Errorf("stop PostgreSQL: %w", stopErr)
	}
	return nil
}

// output is how the program draws: its options, its colours, and what a
// recording of it says.
type output struct {
	options []tea.ProgramOption
	profile colorprofile.Profile
	cast    cast.Options
}

// headlessTerm is the terminal play draws for when its output is none: its
// capabilities (cursor moves) and colours (256, as xterm-256color says) are
// what a recording made in CI is replayed on, asciinema or svg-term.
const headlessTerm = "xterm-256color"

// headlessOutput is how play draws with no terminal (a script, CI, a
// recording made there): at a fixed size, for an xterm-256color of that
// size, colours included, as it would draw on one. Detected, the colours
// would be none (no terminal to ask) and the cursor moves those of
// whatever $TERM says, or none.
//
// With no keyboard (standard input no terminal) play reads no input, and
// its renderer, having put no terminal in raw mode, writes a bare line
// feed for "next line, first column", as a terminal driver's onlcr makes
// it: a recording says so (cast.Options.MapNewlines).
func headlessOutput(opts Options) output {
	o := output{profile: colorprofile.Detect(os.Stdout, os.Environ())}
	if !opts.Play {
		return o
	}
	if !term.IsTerminal(os.Stdin.Fd()) {
		o.options = append(o.options, tea.WithInput(nil))
		o.cast.MapNewlines = true
	}
	if term.IsTerminal(os.Stdout.Fd()) {
		return o
	}
	o.cast.W, o.cast.H = envSize()
	o.cast.Term = headlessTerm
	env := []string{"TERM=" + headlessTerm}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TERM=") {
			env = append(env, kv)
		}
	}
	o.profile = colorprofile.ANSI256
	o.options = append(o.options, tea.WithWindowSize(o.cast.W, o.cast.H), tea.WithEnvironment(env), tea.WithColorProfile(o.profile))
	return o
}

// pushTitle and popTitle save the terminal's window and icon title on its
// stack and restore it (xterm's XTWINOPS 22;0 and 23;0).
const (
	pushTitle = "\x1b[22;0t"
	popTitle  = "\x1b[23;0t"
)

// printSummary writes what play leaves on the normal screen once it
// played to its end (summaryOf), in the program's colours, to the
// terminal and the recording: after the full screen is gone, the result
// stays in the scrollback, and a recording ends on it too.
func printSummary(m *Model, rec *cast.Recorder, profile colorprofile.Profile) {
	pp := m.playPage()
	if pp == nil {
		return
	}
	w, _ := m.size()
	s := pp.summaryOf(m.pageCtx(), w)
	if s == "" {
		return
	}
	var dst io.Writer = os.Stdout
	if rec != nil {
		dst = rec
	}
	// CR LF: the terminal may still be in raw mode for all the recording
	// knows, and a cooked one shows CR CR LF the same.
	s = strings.ReplaceAll(s, "\n", "\r\n")
	_, _ = io.WriteString(&colorprofile.Writer{Forward: dst, Profile: profile}, s)
}

// envSize is the size play draws at without a terminal: $COLUMNS×$LINES,
// else 120×40.
func envSize() (int, int) {
	w, h := 120, 40
	if v, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && v >= minWidth {
		w = v
	}
	if v, err := strconv.Atoi(os.Getenv("LINES")); err == nil && v >= minHeight {
		h = v
	}
	return w, h
}
