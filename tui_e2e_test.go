package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/internal/testrun"
)

// tmuxTerm drives the built outboxlab in a real terminal, as a person would:
// keys in with send-keys, the screen out with capture-pane.
type tmuxTerm struct {
	t      *testing.T
	socket string
}

func (m tmuxTerm) tmux(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-L", m.socket}, args...)...).CombinedOutput()
	return string(out), err
}

func (m tmuxTerm) keys(keys ...string) {
	m.t.Helper()
	for _, k := range keys {
		if out, err := m.tmux("send-keys", "-t", "e2e", k); err != nil {
			m.t.Fatalf("send-keys %q: %v %s", k, err, out)
		}
		time.Sleep(60 * time.Millisecond) // pacing: keys at a typist's pace
	}
}

// exited is what startTUIOn's command line prints when the program ends.
var exited = regexp.MustCompile(`(?m)^EXITED [0-9]+\s*$`)

func (m tmuxTerm) screen() string {
	out, _ := m.tmux("capture-pane", "-p", "-t", "e2e")
	return out
}

// waitFor polls the screen until re matches, pressing press (if any) between
// polls, and returns the screen.
//
// The program ended (its command line echoes EXITED and its code, then
// sleeps 30 s before tmux goes) fails the wait at once, with that screen:
// waited out, the screen was gone with tmux ("no server running"), and
// with it why the program had ended.
func (m tmuxTerm) waitFor(what string, re *regexp.Regexp, timeout time.Duration, press ...string) string {
	m.t.Helper()
	var s, last string
	seen := false
	defer func() {
		if !seen {
			m.t.Logf("the last screen read:\n%s", last)
		}
	}()
	testrun.Eventually(m.t, timeout, what+" on screen", func() bool {
		s = m.screen()
		if re.MatchString(s) {
			return true
		}
		if strings.TrimSpace(s) != "" {
			last = s
		}
		if exited.MatchString(s) {
			seen = true // this failure shows the screen itself
			m.t.Fatalf("waiting for %s: the program ended first:\n%s", what, s)
		}
		if len(press) > 0 {
			m.keys(press...)
			time.Sleep(250 * time.Millisecond) // pacing: each press drawn before the screen is read again
		}
		return false
	})
	seen = true
	return s
}

// downTo presses Down until re matches the screen, at most max times. Each
// press is seen on screen before the next is decided: a screen read while
// the program still draws the last press would press once too often (on a
// busy CI machine the lesson dedup opened instead of crash-after-publish).
func (m tmuxTerm) downTo(re *regexp.Regexp, max int) {
	m.t.Helper()
	for i := 0; i < max; i++ {
		before := m.screen()
		if re.MatchString(before) {
			return
		}
		m.keys("Down")
		testrun.Eventually(m.t, 10*time.Second, "the screen moved by Down", func() bool { return m.screen() != before })
	}
}

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// builtOutboxlab builds the program once for every test of the process (a
// link takes seconds) and returns the binary's path; TestMain removes it.
func builtOutboxlab(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "outboxlab-bin-"); buildErr != nil {
			return
		}
		if out, err := exec.Command("go", "build", "-o", filepath.Join(buildDir, "outboxlab"), ".").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(buildDir, "outboxlab")
}

// startTUI builds outboxlab and starts it in a tmux terminal of 120×40 with
// args (env sets variables for it), on a data directory of its own as a
// first run leaves it; the session ends with the test. The data directory is
// returned too.
func startTUI(t *testing.T, name, env, args string) (tmuxTerm, string) {
	t.Helper()
	return startTUIOn(t, seededDataDir(t), name, env, args)
}

// startFirstTUI is startTUI on a new data directory: outboxlab's first run,
// a cold boot.
func startFirstTUI(t *testing.T, name, env, args string) (tmuxTerm, string) {
	t.Helper()
	return startTUIOn(t, tempDataDir(t), name, env, args)
}

func startTUIOn(t *testing.T, dir, name, env, args string) (tmuxTerm, string) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed: .ci/run installs it (apt-get install tmux)")
		}
		t.Skip("tmux is not installed (apt-get install tmux) — the end-to-end terminal test needs it")
	}
	bin := builtOutboxlab(t)
	term := tmuxTerm{t: t, socket: fmt.Sprintf("outboxlab-%s-%d", name, os.Getpid())}
	sub := "" // a command (live) goes before the flags
	if first, rest, _ := strings.Cut(args, " "); first != "" && !strings.HasPrefix(first, "-") {
		sub, args = first, rest
	}
	// The watcher ends the terminal, and outboxlab with it (SIGHUP: it
	// stops its server), when this test binary is gone: a run killed by
	// go test's timeout skips the cleanup below.
	watch := fmt.Sprintf("(while kill -0 %d 2>/dev/null; do sleep 1; done; tmux -L %s kill-server) >/dev/null 2>&1 &", os.Getpid(), term.socket)
	cmd := fmt.Sprintf("%s %s %s %s --data-dir %s %s; echo EXITED $?; sleep 30", watch, env, bin, sub, dir, args)
	if out, err := term.tmux("new-session", "-d", "-s", "e2e", "-x", "120", "-y", "40", cmd); err != nil {
		t.Fatalf("tmux new-session: %v %s", err, out)
	}
	t.Cleanup(func() { _, _ = term.tmux("kill-server") })
	return term, dir
}

// The end-to-end check: pick crash-after-publish, crash relay-1 at
// relay.published, advance past the lease, and see the duplicate ignored by
// the inbox on screen; then quit and leave no server behind.
func TestTUIEndToEndInTmux(t *testing.T) {
	t.Parallel()
	term, dir := startFirstTUI(t, "e2e", "", "--scene dual-write-crash")
	term.waitFor("the main screen", regexp.MustCompile(`scene dual-write-crash`), 90*time.Second)
	term.waitFor("the first scene ready", regexp.MustCompile(`p payment`), 90*time.Second)
	term.keys("/")
	term.waitFor("the lesson and scene picker", regexp.MustCompile(`lessons and scenes`), 30*time.Second)
	term.keys("p", "u", "b", "l", "i", "s", "h", "Enter") // typing after / filters at once
	// The list marks the selected scene with a bar; move it to ours.
	term.downTo(regexp.MustCompile(`│ crash-after-publish`), 16)
	term.keys("Enter")
	term.waitFor("crash-after-publish opened", regexp.MustCompile(`scene crash-after-publish`), 60*time.Second)
	// Keys that do not apply yet are disabled (and absent from the help line)
	// until the scene's simulation is ready.
	term.waitFor("the scene ready for keys", regexp.MustCompile(`p payment`), 90*time.Second)

	term.keys("p")
	term.waitFor("the payment request", regexp.MustCompile(`a client asks for a`), 10*time.Second)
	term.keys("c")
	term.waitFor("the crash chooser", regexp.MustCompile(`crash which actor\?`), 10*time.Second)
	// Move down to relay-1, whatever its place in the list.
	term.downTo(regexp.MustCompile(`▸ [0-9] relay-1`), 6)
	term.keys("Enter")
	term.waitFor("the when chooser", regexp.MustCompile(`crash relay-1 when\?`), 10*time.Second)
	term.downTo(regexp.MustCompile(`▸ [0-9] at relay\.published`), 8)
	term.keys("Enter")
	term.waitFor("relay-1 crashed at relay.published", regexp.MustCompile(`CRASH@published|crashed at relay\.published`), 60*time.Second, "n")
	term.keys("t")
	term.waitFor("the clock past the lease", regexp.MustCompile(`time 12:00:3[1-9]|time 12:0[1-9]`), 10*time.Second)
	term.keys("Space")
	s := term.waitFor("a duplicate ignored by the inbox", regexp.MustCompile(`dup\. ignored\s+[1-9]`), 90*time.Second)
	if !regexp.MustCompile(`duplicate effects\s+0`).MatchString(s) {
		t.Errorf("the screen shows duplicate effects:\n%s", s)
	}
	t.Logf("screen with the duplicate ignored:\n%s", s)

	term.keys("q")
	term.waitFor("outboxlab to exit", regexp.MustCompile(`EXITED 0`), 60*time.Second)
	if n := postmasters(t, filepath.Join(dir, "pgdata")); n != 0 {
		t.Errorf("%d PostgreSQL servers still run after q", n)
	}
	if !strings.Contains(term.screen(), "EXITED 0") {
		t.Errorf("outboxlab did not exit 0")
	}
}

// The race lesson, the one a learner could not do from the keyboard, done
// through the built binary with the keys its hint shows: two accounting
// workers reach the inbox insert with the same message, and the step passes.
func TestRaceLessonByKeysInTmux(t *testing.T) {
	t.Parallel()
	// progress.json goes to a directory of the test's, not the user's state.
	term, _ := startTUI(t, "race", "XDG_STATE_HOME="+t.TempDir(), "--lesson race --lang en")
	term.waitFor("the lesson ready for keys", regexp.MustCompile(`p payment`), 90*time.Second)
	term.keys("h")
	// The pane may scroll to the hint's end; the key paths are what matter.
	hint := term.waitFor("the hint with its keys", regexp.MustCompile(`Hint\.`), 30*time.Second)
	hint = strings.ReplaceAll(hint, "\u00a0", " ") // a key path's no-break spaces
	for _, path := range []string{"m 3 4", "m 4 4"} {
		if !strings.Contains(hint, path) {
			t.Errorf("the hint does not show %q:\n%s", path, hint)
		}
	}
	// p payment · m 1 2 finish api · m 2 2 finish relay-1 · d duplicate ·
	// m 3 4 until accounting consumer.inbox_inserted · m 4 4 the same for
	// accounting-2 · D drain
	for _, k := range []string{"p", "m", "1", "2", "m", "2", "2", "d", "m", "3", "4", "m", "4", "4", "D"} {
		term.keys(k)
		time.Sleep(150 * time.Millisecond) // pacing: each key's dialog drawn before the next key
	}
	// The step's checks (both workers at the inbox insert, two ledger
	// entries, one duplicate effect) passed on the real database.
	term.waitFor("the step passed", regexp.MustCompile(`step passed`), 60*time.Second)
	term.keys("q")
	term.waitFor("outboxlab to exit", regexp.MustCompile(`EXITED 0`), 60*time.Second)
}

// outboxlab live, through the built binary in a real terminal: the
// deployment on embedded JetStream runs in real time, p posts payments that
// the screen shows published and applied by both consumers (figures read
// from the database), b stops the broker and a payment waits as pending,
// b starts it and the relay's retry publishes it; q exits 0 and leaves no
// PostgreSQL behind.
func TestLiveScreenInTmux(t *testing.T) {
	t.Parallel()
	term, dir := startTUI(t, "live", "", "live --lang en")
	term.waitFor("the live screen", regexp.MustCompile(`JetStream embedded in this process`), 90*time.Second)
	term.waitFor("the actors running", regexp.MustCompile(`relay-1\s+● running`), 60*time.Second)
	term.keys("p", "p", "p")
	term.waitFor("three payments published", regexp.MustCompile(`published\s+3`), 30*time.Second)
	s := term.waitFor("both consumers applied them", regexp.MustCompile(`inbox\s+3\s+3[\s\S]*effects\s+3\s+3`), 30*time.Second)
	if !regexp.MustCompile(`payments\s+3`).MatchString(s) {
		t.Errorf("the screen does not show 3 payments:\n%s", s)
	}
	term.keys("b")
	term.waitFor("the broker stopped", regexp.MustCompile(`JetStream\s+stopped`), 20*time.Second)
	term.keys("p")
	term.waitFor("a payment pending", regexp.MustCompile(`outbox pending\s+1`), 20*time.Second)
	term.keys("b")
	s = term.waitFor("the pending payment published after the broker came back", regexp.MustCompile(`published\s+4`), 90*time.Second)
	if !regexp.MustCompile(`outbox pending\s+0`).MatchString(s) {
		t.Errorf("published 4 but the outbox is not empty:\n%s", s)
	}
	term.waitFor("both consumers applied the fourth", regexp.MustCompile(`inbox\s+4\s+4[\s\S]*effects\s+4\s+4`), 30*time.Second)
	term.keys("q")
	term.waitFor("outboxlab to exit", regexp.MustCompile(`EXITED 0`), 60*time.Second)
	if n := postmasters(t, filepath.Join(dir, "pgdata")); n != 0 {
		t.Errorf("%d PostgreSQL servers still run after q", n)
	}
}
