package cli

import (
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/pg/pgtest"
)

// readmeCommands are the command lines of the README's code blocks (indented
// by four spaces): `go run . ARGS`, `outboxlab ARGS` or `./outboxlab ARGS`,
// continued lines joined, comments and redirections cut, and [optional]
// parts left out. Each is its arguments.
func readmeCommands(t *testing.T) [][]string {
	t.Helper()
	text, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	optional := regexp.MustCompile(`\s*\[[^\[\]]*(\[[^\[\]]*\][^\[\]]*)*\]`)
	var cmds [][]string
	lines := strings.Split(string(text), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if !strings.HasPrefix(line, "    ") {
			continue
		}
		line = strings.TrimSpace(line)
		var rest string
		switch {
		case strings.HasPrefix(line, "go run . "), line == "go run .":
			rest = strings.TrimPrefix(strings.TrimPrefix(line, "go run ."), " ")
		case strings.HasPrefix(line, "outboxlab "):
			rest = strings.TrimPrefix(line, "outboxlab ")
		case strings.HasPrefix(line, "./outboxlab "):
			rest = strings.TrimPrefix(line, "./outboxlab ")
		default:
			continue
		}
		for strings.HasSuffix(rest, `\`) && i+1 < len(lines) {
			i++
			rest = strings.TrimSuffix(rest, `\`) + " " + strings.TrimSpace(lines[i])
		}
		rest, _, _ = strings.Cut(rest, "#")
		rest, _, _ = strings.Cut(rest, ">")
		rest = optional.ReplaceAllString(rest, "")
		cmds = append(cmds, strings.Fields(rest))
	}
	return cmds
}

// Every command line the README documents parses: its command exists, its
// flags and values are the command's, its arguments are as many as it takes.
// The cheap ones run for real on the built binary (scenes, run, story,
// lessons, doctor, version), the long-running ones (the simulator, play,
// serve, live, workshop, chaos) are parsed only, and their --help runs.
func TestEveryReadmeCommandParses(t *testing.T) {
	cmds := readmeCommands(t)
	if len(cmds) < 25 {
		t.Fatalf("found %d command lines in the README, want the 25 or more it shows: %q", len(cmds), cmds)
	}
	for _, args := range cmds {
		root := newRoot(io.Discard, io.Discard)
		args = longFlags(root, args)
		cmd, rest, err := root.Find(args)
		if err == nil {
			err = cmd.ParseFlags(rest)
		}
		if err == nil {
			err = cmd.ValidateArgs(cmd.Flags().Args())
		}
		if err != nil {
			t.Errorf("README: outboxlab %s: %v", strings.Join(args, " "), err)
		}
	}
}

func TestEveryReadmeCommandRuns(t *testing.T) {
	bin := binary(t)
	data := pgtest.DataDir(t)
	state := t.TempDir()
	for _, args := range readmeCommands(t) {
		name := ""
		if len(args) > 0 {
			name = args[0]
		}
		run := append([]string{}, args...)
		want := ExitOK
		switch name {
		case "scenes", "version", "lessons":
		case "run", "story", "doctor":
			run = append(run, "--data-dir", data)
			if name == "run" {
				want = -1 // a wrong way's scene may fail its expectations (exit 1): not bad input
			}
		default: // long-running or a screen: its help
			run = append(run, "--help")
		}
		cmd := testrun.Command(t, 2*time.Minute, bin, run...)
		cmd.Env = append(cmd.Environ(), "XDG_STATE_HOME="+state, "LANG=C.UTF-8", "LC_ALL=")
		out, err := cmd.CombinedOutput()
		code := cmd.ProcessState.ExitCode()
		if err != nil && code < 0 {
			t.Fatalf("outboxlab %v: %v", run, err)
		}
		if want == ExitOK && code != ExitOK || code == ExitUsage {
			t.Errorf("README: outboxlab %s: exit %d\n%s", strings.Join(run, " "), code, lastLines(string(out), 5))
		}
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
