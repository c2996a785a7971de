package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/badinput"
)

// Bad input, from whichever package and however wrapped, exits 2; any other
// error 1; a failure already said exits 1 saying nothing more.
func TestExitCodeIsDecidedInOnePlace(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{io.EOF, ExitFail},
		{fmt.Errorf("boot: %w", badinput.Wrap(io.EOF)), ExitUsage},
		{usage(errors.New("unexpected argument")), ExitUsage},
		{errFailed, ExitFail},
	} {
		if got := exitCode(c.err); got != c.want {
			t.Errorf("exitCode(%v) = %d, want %d", c.err, got, c.want)
		}
	}
	var errb bytes.Buffer
	if code := report(nil, errFailed, &errb); code != ExitFail || errb.Len() != 0 {
		t.Errorf("a failure said already: exit %d, stderr %q; want 1 and nothing", code, errb.String())
	}
}

// execute runs the command line in this process.
func execute(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Execute(args, &out, &errb)
	return code, out.String(), errb.String()
}

// A command line mistake is one line naming the command, then a hint to its
// --help; never cobra's usage dump. Exit 2.
func TestCommandLineMistakes(t *testing.T) {
	for _, c := range []struct {
		args []string
		say  string
	}{
		{[]string{"doctor", "--bogus"}, "outboxlab doctor: flag provided but not defined: -bogus\nRun 'outboxlab doctor --help' for usage.\n"},
		{[]string{"scenes", "extra"}, "outboxlab scenes: unexpected argument \"extra\"\nRun 'outboxlab scenes --help' for usage.\n"},
		{[]string{"frobnicate"}, "outboxlab: unknown command \"frobnicate\"\nRun 'outboxlab --help' for usage.\n"},
		{[]string{"scene"}, "outboxlab: unknown command \"scene\" (did you mean scenes?)\n"},
		{[]string{"run", "rollback", "--seed", "x"}, "outboxlab run: invalid argument \"x\" for \"--seed\" flag"},
		{[]string{"run", "rollback", "dual-write-crash"}, "outboxlab run: unexpected argument \"dual-write-crash\""},
		{[]string{"run"}, "outboxlab run: which scene? `outboxlab scenes` lists them\n"},
		{[]string{"story", "rollback", "--width", "20"}, "outboxlab story: --width 20: want 40 or more\n"},
		{[]string{"version", "extra"}, "outboxlab version: unexpected argument \"extra\" (it takes none)"},
	} {
		code, _, stderr := execute(c.args...)
		if code != ExitUsage || !strings.HasPrefix(stderr, c.say) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.say)
		}
		if strings.Contains(stderr, "Flags:") {
			t.Errorf("%v: the usage dump on a mistake:\n%s", c.args, stderr)
		}
	}
}

// Go's flag package took -name as well as --name: both still parse, with a
// value after a space or an =, for every command's long flags; single
// letters and what follows "--" stay as they are.
func TestLongFlagsTakeOneDash(t *testing.T) {
	root := newRoot(io.Discard, io.Discard)
	got := longFlags(root, []string{"run", "-seed", "3", "-json", "-mode=compare", "--variant", "x", "-h", "-bogus", "--", "-seed"})
	want := []string{"run", "--seed", "3", "--json", "--mode=compare", "--variant", "x", "-h", "-bogus", "--", "-seed"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("longFlags:\n got %q\nwant %q", got, want)
	}
	// Parsed: -mode reaches run's check of the mode, -scenes lists a directory.
	if code, _, stderr := execute("run", "rollback", "-mode", "sideways"); code != ExitUsage || !strings.Contains(stderr, `--mode "sideways"`) {
		t.Errorf("run -mode sideways: exit %d, %q", code, stderr)
	}
	if code, stdout, stderr := execute("scenes", "-scenes", t.TempDir()); code != ExitOK || !strings.Contains(stdout, "rollback ") {
		t.Errorf("scenes -scenes DIR: exit %d, %q", code, stderr)
	}
	if code, stdout, _ := execute("-version"); code != ExitOK || !strings.HasPrefix(stdout, "outboxlab ") {
		t.Errorf("-version: exit %d, %q", code, stdout)
	}
}

// Every command's --help exits 0 on stdout in cobra's layout; the root's
// lists every command as the usage always has, then its flags.
func TestHelpOfEveryCommand(t *testing.T) {
	root := newRoot(io.Discard, io.Discard)
	for _, sub := range root.Commands() {
		if sub.Hidden || sub.Name() == "help" {
			continue
		}
		code, stdout, stderr := execute(sub.Name(), "--help")
		if code != ExitOK || !strings.Contains(stdout, "Usage:\n  outboxlab "+sub.Name()) || stderr != "" {
			t.Errorf("%s --help: exit %d, stderr %q, stdout:\n%s", sub.Name(), code, stderr, stdout)
		}
		if !strings.Contains(commands, "outboxlab "+sub.Name()) {
			t.Errorf("the root's help does not list %s", sub.Name())
		}
	}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"-help"}} {
		code, stdout, _ := execute(args...)
		if code != ExitOK || !strings.HasPrefix(stdout, commands) || !strings.Contains(stdout, "\nFlags:\n") || !strings.Contains(stdout, "--lesson NAME") {
			t.Errorf("outboxlab %v: exit %d:\n%s", args, code, stdout)
		}
	}
}
