package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/lessons"
)

// `outboxlab lessons` lists every lesson, one line each, done or not;
// --reset forgets progress; bad input exits 2.
func TestLessonsCommand(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("LC_ALL", "")
	t.Setenv("LANG", "es_ES.UTF-8")
	all, err := lessons.Load("es")
	if err != nil {
		t.Fatal(err)
	}
	list := func() string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run([]string{"lessons"}, &out, &errb); code != exitOK {
			t.Fatalf("lessons: exit %d: %s", code, errb.String())
		}
		return out.String()
	}
	out := list()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(all)+1 {
		t.Fatalf("%d lines for %d lessons:\n%s", len(lines), len(all), out)
	}
	for i, l := range all {
		if !strings.Contains(lines[i], "[ ] "+l.Name) || !strings.Contains(lines[i], l.Title) {
			t.Errorf("line %d = %q, want %s not done, in Spanish (LANG)", i+1, lines[i], l.Name)
		}
	}

	p, err := lessons.LoadProgress("")
	if err != nil {
		t.Fatal(err)
	}
	p.MarkStep("inbox", 1)
	p.MarkDone("duplicate", time.Now())
	p.MarkDone("relay", time.Now())
	if err := p.Save(); err != nil {
		t.Fatal(err)
	}
	out = list()
	// In Spanish throughout (LANG), the counts and the footer too.
	for _, want := range []string{"[x] duplicate   hecha", "[x] relay       hecha", "[ ] inbox       1/3 pasos", "2 de 20 hechas"} {
		if !strings.Contains(out, want) {
			t.Errorf("after progress, the list lacks %q:\n%s", want, out)
		}
	}

	var o, e bytes.Buffer
	if code := run([]string{"lessons", "--reset", "duplicate"}, &o, &e); code != exitOK {
		t.Fatalf("--reset duplicate: exit %d: %s", code, e.String())
	}
	out = list()
	if !strings.Contains(out, "[ ] duplicate") || !strings.Contains(out, "[x] relay") {
		t.Errorf("after --reset duplicate:\n%s", out)
	}
	if code := run([]string{"lessons", "--reset"}, &o, &e); code != exitOK {
		t.Fatalf("--reset: exit %d: %s", code, e.String())
	}
	if out = list(); strings.Contains(out, "[x]") {
		t.Errorf("after --reset, lessons still done:\n%s", out)
	}
}

func TestLessonBadInput(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	cases := []struct {
		args []string
		say  string
	}{
		{[]string{"--lesson", "nope"}, `unknown lesson "nope"`},
		{[]string{"--lesson", "inbox", "--lang", "fr"}, `--lang: unknown language "fr"`},
		{[]string{"--lesson", "inbox", "--scene", "rollback"}, "leave out --scene"},
		{[]string{"lessons", "--lang", "xx"}, `unknown language "xx"`},
		{[]string{"lessons", "--reset", "nope"}, `unknown lesson "nope"`},
		{[]string{"lessons", "inbox"}, `unexpected argument "inbox"`},
		{[]string{"play"}, "play what?"},
		{[]string{"play", "nope"}, `"nope" is neither a scene nor a lesson`},
		{[]string{"play", "inbox", "--speed", "0"}, "--speed 0"},
		{[]string{"play", "inbox", "--hold", "-1s"}, "--hold -1s"},
		{[]string{"play", "inbox", "--lang", "de"}, `unknown language "de"`},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, exitUsage, errb.String())
		}
		if !strings.Contains(errb.String(), c.say) {
			t.Errorf("%v: stderr %q does not say %q", c.args, errb.String(), c.say)
		}
	}
}

// castEvent is one asciicast v2 event.
type castEvent struct {
	t    float64
	kind string
	data string
}

// readCast checks an asciicast v2 file: a header, then events whose times
// never go back.
func readCast(t *testing.T, path string) (width, height int, events []castEvent) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	if !sc.Scan() {
		t.Fatal("empty recording")
	}
	var hdr struct {
		Version   int               `json:"version"`
		Width     int               `json:"width"`
		Height    int               `json:"height"`
		Timestamp int64             `json:"timestamp"`
		Env       map[string]string `json:"env"`
	}
	if err := json.Unmarshal(sc.Bytes(), &hdr); err != nil {
		t.Fatalf("header %q: %v", sc.Text(), err)
	}
	if hdr.Version != 2 || hdr.Width < 80 || hdr.Height < 24 || hdr.Timestamp == 0 || hdr.Env["TERM"] == "" {
		t.Fatalf("header %+v", hdr)
	}
	last := 0.0
	for n := 2; sc.Scan(); n++ {
		var ev []any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || len(ev) != 3 {
			t.Fatalf("line %d is not an event: %q", n, sc.Text())
		}
		at, ok1 := ev[0].(float64)
		kind, ok2 := ev[1].(string)
		data, ok3 := ev[2].(string)
		if !ok1 || !ok2 || !ok3 || kind != "o" && kind != "r" {
			t.Fatalf("line %d: %q", n, sc.Text())
		}
		if at < last {
			t.Fatalf("line %d: time %v before %v", n, at, last)
		}
		if kind == "r" && !regexp.MustCompile(`^\d+x\d+$`).MatchString(data) {
			t.Fatalf("line %d: resize %q", n, data)
		}
		last = at
		events = append(events, castEvent{at, kind, data})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(events) < 10 {
		t.Fatalf("only %d events", len(events))
	}
	return hdr.Width, hdr.Height, events
}

// castScreens replays a recording through a terminal emulator of the
// recorded size (charmbracelet/x/vt), as asciinema's player does: last is
// the screen just before the program leaves the full screen (its last
// frame), end the screen once the whole recording is replayed (what a GIF
// ends on). The terminal must answer nothing: a recording asks it nothing.
func castScreens(t *testing.T, w, h int, events []castEvent) (last, end string) {
	t.Helper()
	emu := vt.NewEmulator(w, h)
	answers := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(emu) // what the terminal answers, until its input is closed
		answers <- b
	}()
	for _, e := range events {
		switch e.kind {
		case "r":
			var rw, rh int
			if _, err := fmt.Sscanf(e.data, "%dx%d", &rw, &rh); err == nil {
				emu.Resize(rw, rh)
			}
		case "o":
			data := e.data
			if i := strings.LastIndex(data, "\x1b[?1049l"); i >= 0 {
				_, _ = emu.WriteString(data[:i])
				last = screenText(emu.String())
				data = data[i:]
			}
			_, _ = emu.WriteString(data)
		}
	}
	end = screenText(emu.String())
	_ = emu.InputPipe().(io.Closer).Close()
	if b := <-answers; len(b) > 0 {
		t.Errorf("replayed, the recording makes the terminal answer %q: it holds queries", b)
	}
	if last == "" {
		t.Error("the recording never leaves the full screen")
	}
	return last, end
}

// screenText is a screen as lines without trailing blanks, and without
// blank lines at its end: the emulator's and tmux's screens compare.
func screenText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

func needTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed: .ci/run installs it (apt-get install tmux)")
		}
		t.Skip("tmux is not installed (apt-get install tmux): the replay needs a terminal")
	}
}

// The last frame of crash-after-publish: the duplicate ignored by both
// inboxes, no duplicate effect, the script played, the end said on it.
var crashAfterPublishFrame = []string{`dup\. ignored\s+2`, `duplicate effects\s+0`, `scene crash-after-publish|│ crash-after-publish │`, `script 5/5`, `■ the end`,
	`✓ The duplicate window: published, not marked`, `Guarantees the oracle, from the database ─+\n`, `Timeline \d+ entries ─+\n`}

// A recording is the screen, whatever play's output: `play
// crash-after-publish --record` made headless (standard input empty,
// standard output no terminal, $COLUMNS×$LINES) and made in a terminal
// (tmux) of the same size replay through a terminal emulator to the same
// last frame, the one the terminal showed live: colours included, no
// panel written over another, no query to the terminal in the recording.
// The last frame stays --hold, then the summary is left on the normal
// screen, in the recording too.
func TestPlayRecordingIsTheScreen(t *testing.T) {
	t.Parallel()
	needTmux(t)
	const w, h, hold = 100, 30, 2 * time.Second
	args := "play crash-after-publish --speed 40 --hold 2s --record "

	// Headless, as CI and scripts run it.
	headless := filepath.Join(t.TempDir(), "headless.cast")
	cmd := outboxlabChild(t, 2*time.Minute, args+headless+" --data-dir "+seededDataDir(t))
	cmd.Env = append(cmd.Env, "COLUMNS=100", "LINES=30", "TERM=dumb")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	go func() { done <- cmd.Run() }()

	// In a terminal, as a person runs it.
	pty := filepath.Join(t.TempDir(), "pty.cast")
	term := tmuxTerm{t: t, socket: fmt.Sprintf("outboxlab-rec-%d", os.Getpid())}
	watch := fmt.Sprintf("(while kill -0 %d 2>/dev/null; do sleep 1; done; tmux -L %s kill-server) >/dev/null 2>&1 &", os.Getpid(), term.socket)
	line := fmt.Sprintf("%s %s %s%s --data-dir %s; echo EXITED $?; sleep 30", watch, builtOutboxlab(t), args, pty, seededDataDir(t))
	if out, err := term.tmux("new-session", "-d", "-s", "e2e", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), line); err != nil {
		t.Fatalf("tmux new-session: %v %s", err, out)
	}
	t.Cleanup(func() { _, _ = term.tmux("kill-server") })
	live := screenText(term.waitFor("the last frame, held", regexp.MustCompile(`■ the end`), 2*time.Minute))
	term.waitFor("play's end", regexp.MustCompile(`EXITED 0`), time.Minute)

	if err := <-done; err != nil {
		t.Fatalf("headless play: %v\n%s", err, stderr.String())
	}
	frames := map[string]string{"live": live}
	for name, cast := range map[string]string{"headless": headless, "pty": pty} {
		cw, ch, events := readCast(t, cast)
		if cw != w || ch != h {
			t.Errorf("%s: recorded at %dx%d, want %dx%d", name, cw, ch, w, h)
		}
		var all strings.Builder
		drawn, left := -1.0, -1.0
		for _, e := range events {
			all.WriteString(e.data)
			if drawn < 0 && strings.Contains(e.data, "■ the end") {
				drawn = e.t
			}
			if strings.Contains(e.data, "\x1b[?1049l") {
				left = e.t
			}
		}
		if !strings.Contains(all.String(), "\x1b[38;5;") {
			t.Errorf("%s: the recording has no 256-colour codes", name)
		}
		if stays := time.Duration((left - drawn) * float64(time.Second)); drawn < 0 || stays < hold-200*time.Millisecond {
			t.Errorf("%s: the last frame stays %v (drawn at %.2f s, left at %.2f s), want --hold %v", name, stays, drawn, left, hold)
		}
		last, end := castScreens(t, cw, ch, events)
		frames[name] = last
		t.Logf("%s: the last frame, replayed:\n%s\nthe screen at the end:\n%s", name, last, end)
		for _, re := range crashAfterPublishFrame {
			if !regexp.MustCompile(re).MatchString(last + "\n") {
				t.Errorf("%s: the last frame does not match %s", name, re)
			}
		}
		for _, re := range []string{`outboxlab play crash-after-publish · The duplicate window`, `duplicate effects 0✓`, `dup\. ignored 2`} {
			if !regexp.MustCompile(re).MatchString(end) {
				t.Errorf("%s: the summary left on the normal screen does not match %s", name, re)
			}
		}
	}
	if frames["headless"] != frames["live"] || frames["pty"] != frames["live"] {
		t.Errorf("the last frames differ:\nlive:\n%s\nheadless, replayed:\n%s\nin a terminal, replayed:\n%s", frames["live"], frames["headless"], frames["pty"])
	}
}

// Two recordings at once on one data directory both succeed: the second
// waits for the first's server and uses it, and the first, ending first,
// keeps the server up until the second has ended too; nothing is left
// running after both.
func TestTwoPlaysAtOnceOnOneDataDirectory(t *testing.T) {
	t.Parallel()
	dir := seededDataDir(t)
	type result struct {
		err    error
		stderr string
		cast   string
	}
	// The first ends well before the second.
	speeds := []string{"60", "20"}
	results := make(chan result, len(speeds))
	for i, speed := range speeds {
		cast := filepath.Join(t.TempDir(), fmt.Sprintf("play%d.cast", i))
		cmd := outboxlabChild(t, 2*time.Minute, "play crash-after-publish --speed "+speed+" --record "+cast+" --data-dir "+dir)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &bytes.Buffer{}, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			err := cmd.Wait()
			results <- result{err, stderr.String(), cast}
		}()
	}
	for range speeds {
		r := <-results
		if r.err != nil {
			t.Errorf("a play beside another: %v\n%s", r.err, r.stderr)
			continue
		}
		w, h, events := readCast(t, r.cast)
		if len(events) == 0 || w == 0 || h == 0 {
			t.Errorf("%s: an empty recording", r.cast)
		}
	}
	if n := postmasters(t, filepath.Join(dir, "pgdata")); n != 0 {
		t.Errorf("%d PostgreSQL servers still run after both plays ended", n)
	}
}

// play needs no keyboard: on a data directory it cannot boot it says why
// and ends, whatever its standard input, as run, story, chaos and serve do.
// Where a refusal is bad input the code is 2; a server that fails to start
// (a cluster of another major version) is 1.
func TestCommandsWithoutAKeyboardEndOnABootFailure(t *testing.T) {
	t.Parallel()
	refused := tempDataDir(t)
	if err := os.MkdirAll(refused, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(refused, "theirs.txt"), []byte("not outboxlab's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A data directory whose cluster says another major version made it.
	other := seededDataDir(t)
	version := filepath.Join(other, "pgdata", "PG_VERSION")
	if err := os.WriteFile(version, []byte("9\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		dir, say string
		code     int
	}{
		{refused, "is not an outboxlab data directory", exitUsage},
		{other, "was made by PostgreSQL 9", 1},
	}
	cast := filepath.Join(t.TempDir(), "x.cast")
	for _, c := range cases {
		for _, args := range []string{"play crash-after-publish --record " + cast, "play duplicate", "run crash-after-publish", "story crash-after-publish", "chaos --runs 2", "serve --http 127.0.0.1:0"} {
			cmd := outboxlabChild(t, 30*time.Second, args+" --data-dir "+c.dir)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			start := time.Now()
			err := cmd.Run()
			took := time.Since(start)
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Errorf("%s: %v", args, err)
				continue
			}
			if took > 5*time.Second || code != c.code || !strings.Contains(stderr.String(), c.say) {
				t.Errorf("%s on %s: exit %d after %v, stderr %q; want exit %d within 5 s saying %q", args, filepath.Base(c.dir), code, took.Round(time.Millisecond), stderr.String(), c.code, c.say)
			}
		}
	}
}

// tapeFrames is what each demo is about: its recording's last frame (the
// full screen, held) must match these. A tape that records and is not
// here fails: say what its last frame shows.
var tapeFrames = map[string][]string{
	"crash-after-publish.tape": crashAfterPublishFrame,
	"duplicate-lesson.tape": {`lesson duplicate`, `■ the end`, `✓ Lesson done: The duplicate window: published, not marked`,
		`Lesson done ✓`, `2 of 2 answered right`, `dup\. ignored\s+2`, `duplicate effects\s+0`},
}

// The demos' VHS tapes type shell commands; with no VHS here, each runs as
// a plain shell command, headless, with the built outboxlab on PATH, and
// must exit 0. A tape that records makes the demo CI would make: replayed
// through a terminal emulator, the recording's last frame shows what the
// tape is about (tapeFrames) and the screen it ends on matches what the
// tape waits for (Wait+Screen /regex/), which it does rather than sleep.
func TestDemoTapesRun(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays the demos")
	}
	tapes, err := filepath.Glob("demos/*.tape")
	if err != nil || len(tapes) == 0 {
		t.Fatalf("no tapes: %v", err)
	}
	built := builtOutboxlab(t)
	typed := regexp.MustCompile(`^Type\s+"(.*)"\s*$`)
	waits := regexp.MustCompile(`^Wait\+Screen(?:@\S+)?\s+/(.*)/\s*$`)
	sleeps := regexp.MustCompile(`^Sleep\s+(\S+)\s*$`)
	for _, tape := range tapes {
		t.Run(filepath.Base(tape), func(t *testing.T) {
			t.Parallel()
			// outboxlab on PATH, on a data directory of the tape's own.
			bin := t.TempDir()
			wrapper := fmt.Sprintf("#!/bin/sh\ncase \"$1\" in\nplay|run) exec %s \"$@\" --data-dir %s ;;\n*) exec %s \"$@\" ;;\nesac\n",
				built, seededDataDir(t), built)
			if err := os.WriteFile(filepath.Join(bin, "outboxlab"), []byte(wrapper), 0o755); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(tape)
			if err != nil {
				t.Fatal(err)
			}
			var cmds []string
			var waitFor []*regexp.Regexp
			for _, line := range strings.Split(string(b), "\n") {
				line = strings.TrimSpace(line)
				if m := typed.FindStringSubmatch(line); m != nil {
					cmds = append(cmds, strings.ReplaceAll(m[1], `\"`, `"`))
				}
				if m := waits.FindStringSubmatch(line); m != nil {
					re, err := regexp.Compile(m[1])
					if err != nil {
						t.Fatalf("%s: %v", line, err)
					}
					waitFor = append(waitFor, re)
				}
				if m := sleeps.FindStringSubmatch(line); m != nil {
					if d, err := time.ParseDuration(m[1]); err != nil || d > 10*time.Second {
						t.Errorf("%q: a tape waits for what it shows (Wait+Screen /regex/), it does not sleep long", line)
					}
				}
			}
			if len(cmds) == 0 {
				t.Fatal("the tape types no command")
			}
			work := t.TempDir()
			for _, c := range cmds {
				// exec: the shell becomes outboxlab, which then dies with
				// this test binary if it is killed (testrun.Command).
				sh := testrun.Command(t, 3*time.Minute, "sh", "-c", "exec "+c)
				sh.Dir = work
				sh.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "XDG_STATE_HOME="+work)
				start := time.Now()
				out, err := sh.CombinedOutput()
				if err != nil {
					t.Fatalf("%s: %v\n%s", c, err, out)
				}
				took := time.Since(start)
				i := strings.Index(c, "--record ")
				if i < 0 {
					t.Logf("%s: ok in %v", c, took.Round(100*time.Millisecond))
					continue
				}
				cast := filepath.Join(work, strings.Fields(c[i+len("--record "):])[0])
				w, h, events := readCast(t, cast)
				size := int64(0)
				if fi, err := os.Stat(cast); err == nil {
					size = fi.Size()
				}
				last, end := castScreens(t, w, h, events)
				t.Logf("%s: ok in %v, %d bytes recorded at %dx%d; the last frame, replayed:\n%s\nthe screen it ends on:\n%s",
					c, took.Round(100*time.Millisecond), size, w, h, last, end)
				frame, ok := tapeFrames[filepath.Base(tape)]
				if !ok {
					t.Errorf("%s records, and tapeFrames does not say what its last frame shows", tape)
				}
				for _, re := range frame {
					if !regexp.MustCompile(re).MatchString(last + "\n") {
						t.Errorf("%s: the last frame does not show %s", c, re)
					}
				}
				if len(waitFor) == 0 {
					t.Errorf("%s records, and the tape waits for nothing (Wait+Screen /regex/): its GIF ends wherever a sleep does", tape)
				}
				for _, re := range waitFor {
					if !re.MatchString(end) {
						t.Errorf("%s: the screen it ends on does not show %s, which the tape waits for", c, re)
					}
				}
			}
		})
	}
}
