package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A module whose stop is written for Unix only: it builds for Linux and
// not for Windows, and crosscheck says so for the target that fails only,
// exiting 1; a target it cannot read is exit 2. No file imports anything,
// so the check reads this module alone, not the standard library (under
// the race detector that took 15 s).
func TestATargetThatDoesNotBuildIsNamed(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/killer\n\ngo 1.26\n")
	write("stop_unix.go", "//go:build unix\n\npackage killer\n\nfunc stop(pid int) error { return nil }\n")
	write("killer.go", "package killer\n\n// Stop ends a process group.\nfunc Stop(pid int) error { return stop(-pid) }\n")

	var out, errs bytes.Buffer
	if code := run([]string{"-dir", dir, "linux/amd64"}, &out, &errs); code != 0 {
		t.Fatalf("linux/amd64: exit %d, want 0\n%s", code, errs.String())
	}
	out.Reset()
	code := run([]string{"-dir", dir, "linux/arm64", "windows/amd64"}, &out, &errs)
	if code != 1 {
		t.Fatalf("windows/amd64: exit %d, want 1\n%s%s", code, out.String(), errs.String())
	}
	if got := errs.String(); !strings.Contains(got, "windows/amd64: example.com/killer") || !strings.Contains(got, "undefined: stop") || strings.Contains(got, "linux/arm64:") {
		t.Errorf("the error names the wrong target or not the call:\n%s", got)
	}
	if !strings.Contains(out.String(), "linux/arm64") || !strings.Contains(out.String(), "windows/amd64") {
		t.Errorf("the summary does not list both targets:\n%s", out.String())
	}
	for _, bad := range [][]string{{"windows"}, {}, {"/amd64"}} {
		if code := run(append([]string{"-dir", dir}, bad...), &out, &errs); code != 2 {
			t.Errorf("%q: exit %d, want 2", bad, code)
		}
	}
}
