package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func tempDataDir(t *testing.T) string {
	t.Helper()
	// Not t.TempDir: as root the server's account must reach the directory,
	// and t.TempDir's parents are private to root.
	dir, err := os.MkdirTemp("", "outboxlab-main-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func TestDoctorReportsAndSaysOK(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"doctor", "--data-dir", tempDataDir(t)}, &out, &errb)
	if code != exitOK {
		t.Fatalf("doctor exit %d, stderr:\n%s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if lines[len(lines)-1] != "ok" {
		t.Errorf("last line %q, want ok", lines[len(lines)-1])
	}
	for _, want := range []string{"binaries:", "version:   PostgreSQL ", "data dir:", "listening: 127.0.0.1:", "boot:      cold (initdb)", "boot time:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestBadInput(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		say  string
	}{
		{"unknown flag", []string{"doctor", "--bogus"}, exitUsage, "flag provided but not defined: -bogus"},
		{"stray argument", []string{"doctor", "extra"}, exitUsage, `unexpected argument "extra"`},
		{"unknown command", []string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{"missing binaries", []string{"doctor", "--pg-bin", "/nonexistent/pg", "--data-dir", tempDataDir(t)}, exitFail, "--pg-bin /nonexistent/pg: no such directory"},
		{"bad database url", []string{"doctor", "--database-url", "mysql://x"}, exitFail, "want postgres://"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(c.args, &out, &errb)
			if code != c.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, c.code, errb.String())
			}
			if !strings.Contains(errb.String(), c.say) {
				t.Errorf("stderr %q does not say %q", errb.String(), c.say)
			}
		})
	}
}

func TestScenesListsEveryBuiltin(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"scenes"}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, name := range []string{"dual-write-crash", "crash-after-publish", "poison-message", "two-consumers"} {
		if !strings.Contains(out.String(), name+" ") {
			t.Errorf("scenes output lacks %s:\n%s", name, out.String())
		}
	}
}

func TestRunJSONEndsWithSummaries(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"run", "dual-write-crash", "--json", "--data-dir", tempDataDir(t)}, &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var summaries []map[string]any
	for i, line := range lines {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("line %d is not JSON: %q", i+1, line)
		}
		if _, ok := obj["expected_held"]; ok {
			summaries = append(summaries, obj)
		}
	}
	if len(summaries) != 2 {
		t.Fatalf("%d summary objects, want one per pipeline (naive, outbox)", len(summaries))
	}
	for _, key := range []string{"scene", "mode", "seed", "payments", "outbox_rows", "published", "deliveries", "duplicates_ignored", "effects", "lost_events", "phantom_effects", "duplicate_effects", "dead_lettered", "expected_held"} {
		if _, ok := summaries[0][key]; !ok {
			t.Errorf("summary lacks %q", key)
		}
	}
	if summaries[0]["pipeline"] != "naive" || summaries[0]["lost_events"] != 1.0 {
		t.Errorf("naive summary = %v, want lost_events 1", summaries[0])
	}
	if summaries[1]["lost_events"] != 0.0 || summaries[1]["expected_held"] != true {
		t.Errorf("outbox summary = %v, want lost_events 0 and expected_held", summaries[1])
	}
}

func TestRunBadInput(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/broken.scene", []byte("title: x\nteaches: y\nrequest amount=abc\nexpect outbox payments == 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		say  string
	}{
		{[]string{"run", "no-such-scene"}, `unknown scene "no-such-scene"`},
		{[]string{"run"}, "which scene?"},
		{[]string{"run", "rollback", "--mode", "sideways"}, `--mode "sideways"`},
		{[]string{"run", "rollback", "--variant", "nope"}, `no variant "nope"`},
		{[]string{"run", "rollback", "--scenes", dir}, "broken.scene:3: request: amount="},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", c.args, code, exitUsage)
		}
		if !strings.Contains(errb.String(), c.say) {
			t.Errorf("%v: stderr %q does not say %q", c.args, errb.String(), c.say)
		}
	}
}

// A scene whose expected outcome does not hold exits 1.
func TestRunExitsOneWhenExpectationFails(t *testing.T) {
	dir := t.TempDir()
	scene := "title: wrong\nteaches: a false claim\nrequest\ndrain\nexpect outbox payments == 2\n"
	if err := os.WriteFile(dir+"/wrong.scene", []byte(scene), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run([]string{"run", "wrong", "--scenes", dir, "--data-dir", tempDataDir(t)}, &out, &errb)
	if code != exitFail {
		t.Fatalf("exit %d, want %d; stderr %s", code, exitFail, errb.String())
	}
	if !strings.Contains(out.String(), "FAIL expect outbox payments == 2 (got 1)") {
		t.Errorf("output does not show the failed expectation:\n%s", out.String())
	}
}

// The README's scene table names every built-in scene, so a new scene is
// not left undocumented.
func TestReadmeListsEveryScene(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"scenes"}, &out, &errb); code != exitOK {
		t.Fatal(errb.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		name := strings.Fields(line)[0]
		if !strings.Contains(string(readme), "| "+name+" |") {
			t.Errorf("README's scene table lacks %s", name)
		}
	}
}
