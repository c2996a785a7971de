package cli

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// urlsIn are the URL-like words of cmd's flags' text (nats://HOST:PORT,
// postgres://user:pass@host:port/db…), as help must show them: each whole
// on one line.
func urlsIn(cmd *cobra.Command) []string {
	var out []string
	rx := regexp.MustCompile(`[a-z]+://[^\s)]+`)
	cmd.LocalFlags().VisitAll(func(f *pflag.Flag) { out = append(out, rx.FindAllString(f.Usage, -1)...) })
	return out
}

// helpFits fails t unless every line of help is at most 80 columns and
// every one of urls is whole on a line.
func helpFits(t *testing.T, what, help string, urls []string) {
	t.Helper()
	lines := strings.Split(help, "\n")
	for _, l := range lines {
		if n := utf8.RuneCountInString(strings.TrimRight(l, " ")); n > 80 {
			t.Errorf("%s: a line of %d columns:\n%s", what, n, l)
		}
	}
	for _, u := range urls {
		whole := false
		for _, l := range lines {
			whole = whole || strings.Contains(l, u)
		}
		if !whole {
			t.Errorf("%s: %s is not whole on any line:\n%s", what, u, help)
		}
	}
}

// serve --help and live --help at 80 columns: every line fits, and no URL
// of their flags' text is broken across two lines. Their flags' text is
// wrapped between words; cobra printed each flag on one line, which the
// terminal broke at its edge, in the middle of nats://HOST:PORT[,…].
func TestDeployHelpWrapsBetweenWordsAt80Columns(t *testing.T) {
	t.Setenv("COLUMNS", "80")
	root := newRoot(nil, nil)
	for _, name := range []string{"serve", "live"} {
		cmd, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		urls := urlsIn(cmd)
		if len(urls) < 2 {
			t.Fatalf("%s's flags name %d URLs, want the broker's and the database's: %v", name, len(urls), urls)
		}
		var out, errb strings.Builder
		if code := Execute([]string{name, "--help"}, &out, &errb); code != 0 {
			t.Fatalf("%s --help: exit %d: %s", name, code, errb.String())
		}
		helpFits(t, name+" --help", out.String(), urls)
	}
}

// The same, as a user sees it: live --help in a tmux window of 80×24 (no
// COLUMNS: the width is the terminal's), read back from the pane: the
// terminal wraps no line of it.
func TestLiveHelpInAnEightyColumnTerminal(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed: .ci/run installs it (apt-get install tmux)")
		}
		t.Skip("tmux is not installed (apt-get install tmux)")
	}
	bin := binary(t)
	session := "outboxlab-help-" + strings.ReplaceAll(t.Name(), "/", "-")
	// Only the last 24 lines stay on the pane: the help is read from the
	// pane's history too (capture-pane -S -).
	cmd := exec.Command("tmux", "new-session", "-d", "-s", session, "-x", "80", "-y", "24",
		"env -u COLUMNS "+bin+" live --help; echo HELP-END; sleep 30")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "kill-session", "-t", session).Run() })
	capture := func(join bool) string {
		args := []string{"capture-pane", "-p", "-S", "-", "-t", session}
		if join {
			args = append(args, "-J") // lines the terminal wrapped joined again
		}
		out, err := exec.Command("tmux", args...).Output()
		if err != nil {
			t.Fatalf("tmux capture-pane: %v", err)
		}
		return string(out)
	}
	pane := testrun.Awaited(t, 10*time.Second, "live --help ended", func() string { return capture(false) },
		func(pane string) bool { return strings.Contains(pane, "HELP-END") })
	live, _, err := newRoot(nil, nil).Find([]string{"live"})
	if err != nil {
		t.Fatal(err)
	}
	helpFits(t, "live --help in tmux 80×24", pane, urlsIn(live))
	// A line the terminal had to wrap was broken wherever column 80 fell,
	// in a word or a URL: none is.
	if joined := capture(true); joined != pane {
		t.Errorf("the terminal wrapped lines of live --help at 80 columns:\n%s", pane)
	}
}
