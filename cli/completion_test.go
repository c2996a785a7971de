package cli

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// complete asks the built binary what the shell would offer after args, as
// the bash, zsh and fish scripts do (its hidden __complete command).
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"__complete"}, args...)...)
	cmd.Env = append(cmd.Environ(), "LANG=C.UTF-8", "LC_ALL=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("__complete %v: %v", args, err)
	}
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.HasPrefix(line, ":") {
			break // the directive
		}
		name, _, _ := strings.Cut(line, "\t")
		names = append(names, name)
	}
	return names
}

// Scene and lesson names complete where a command takes one.
func TestScenesAndLessonsComplete(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args      []string
		want, not []string
	}{
		{[]string{"run", "co"}, []string{"commit-order", "concurrent-duplicate"}, []string{"rollback"}},
		{[]string{"story", "crash-a"}, []string{"crash-after-publish", "crash-after-commit"}, []string{"crash-before-ack"}},
		{[]string{"play", "du"}, []string{"dual-write-crash", "duplicate", "dual-write"}, []string{"inbox"}},
		{[]string{"--lesson", ""}, []string{"dual-write", "inbox", "duplicate"}, []string{"rollback"}},
		{[]string{"lessons", "--reset", "in"}, []string{"inbox"}, []string{"duplicate"}},
		{[]string{"serve", "--scene", "two"}, []string{"two-consumers", "two-relays"}, nil},
		{[]string{"run", "rollback", "--mode", ""}, []string{"outbox", "naive", "compare"}, nil},
		{[]string{"run", "rollback", ""}, nil, []string{"rollback"}}, // one scene only
	} {
		got := complete(t, c.args...)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("outboxlab %s<TAB> offers %v, not %s", strings.Join(c.args, " "), got, w)
			}
		}
		for _, n := range c.not {
			if slices.Contains(got, n) {
				t.Errorf("outboxlab %s<TAB> offers %s: %v", strings.Join(c.args, " "), n, got)
			}
		}
	}
}

// The completion scripts of the three shells come out of the binary.
func TestCompletionScripts(t *testing.T) {
	t.Parallel()
	for shell, mark := range map[string]string{"bash": "__outboxlab_", "zsh": "#compdef outboxlab", "fish": "complete -c outboxlab"} {
		out, err := exec.Command(binary(t), "completion", shell).Output()
		if err != nil || !strings.Contains(string(out), mark) {
			t.Errorf("completion %s: %v; the script lacks %q", shell, err, mark)
		}
	}
}
