package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

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

// lastFrame replays the recording's output in a real terminal (tmux) up to
// where the program leaves the alternate screen, and returns the screen.
func lastFrame(t *testing.T, w, h int, events []castEvent) string {
	t.Helper()
	var out strings.Builder
	for _, e := range events {
		if e.kind == "o" {
			out.WriteString(e.data)
		}
	}
	s := out.String()
	if i := strings.LastIndex(s, "\x1b[?1049l"); i >= 0 {
		s = s[:i]
	} else {
		t.Error("the recording never leaves the alternate screen")
	}
	replay := filepath.Join(t.TempDir(), "replay.out")
	if err := os.WriteFile(replay, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	term := tmuxTerm{t: t, socket: fmt.Sprintf("outboxlab-replay-%d", os.Getpid())}
	// The screen is read once cat has written all of it: a frame read while
	// it is still being drawn is half the old one.
	done := replay + ".done"
	if out, err := term.tmux("new-session", "-d", "-s", "e2e", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), "cat "+replay+" && touch "+done+"; sleep 60"); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	t.Cleanup(func() { _, _ = term.tmux("kill-server") })
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(done); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the recording was not replayed in 10 s")
		}
	}
	time.Sleep(100 * time.Millisecond) // tmux draws what cat wrote
	return term.waitFor("the replayed last frame", regexp.MustCompile(`outboxlab`), 10*time.Second)
}

func needTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed: .ci/run installs it (apt-get install tmux)")
		}
		t.Skip("tmux is not installed (apt-get install tmux): the replay needs a terminal")
	}
}

// A recorded `play crash-after-publish`, run as the program runs (no
// terminal, no keyboard): it ends by itself, writes a valid asciicast v2
// file, and its last frame shows the duplicate ignored by the inbox.
func TestPlayRecordsCrashAfterPublish(t *testing.T) {
	t.Parallel()
	cast := filepath.Join(t.TempDir(), "play.cast")
	cmd := outboxlabChild(t, 2*time.Minute, "play crash-after-publish --speed 40 --record "+cast+" --data-dir "+seededDataDir(t))
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &bytes.Buffer{}, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("play (ended after %v; cut at 2 min if it did not end by itself): %v\n%s", time.Since(start).Round(time.Second), err, stderr.String())
	}
	w, h, events := readCast(t, cast)
	needTmux(t)
	screen := lastFrame(t, w, h, events)
	t.Logf("the last frame, replayed:\n%s", screen)
	for _, re := range []string{`dup\. ignored\s+2`, `duplicate effects\s+0`, `scene crash-after-publish`, `script 5/5`} {
		if !regexp.MustCompile(re).MatchString(screen) {
			t.Errorf("the last frame does not match %s:\n%s", re, screen)
		}
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

// The demos' VHS tapes type shell commands; with no VHS here, each runs as
// a plain shell command, with the built outboxlab on PATH, and must exit 0.
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
			for _, line := range strings.Split(string(b), "\n") {
				if m := typed.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
					cmds = append(cmds, strings.ReplaceAll(m[1], `\"`, `"`))
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
				t.Logf("%s: ok in %v", c, time.Since(start).Round(time.Second))
				if i := strings.Index(c, "--record "); i >= 0 {
					file := strings.Fields(c[i+len("--record "):])[0]
					readCast(t, filepath.Join(work, file))
				}
			}
		})
	}
}
