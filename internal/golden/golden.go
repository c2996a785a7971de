package golden

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ from this run")

// Updating reports whether the test runs with -update.
func Updating() bool { return *update }

// Check compares got with the golden file at path, or under -update writes
// got there (making its directory). diff says how got and want differ in a
// failure; nil shows both in full.
func Check(t testing.TB, path, got string, diff func(got, want string) string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run '%s' -update writes it)", err, t.Name())
	}
	if got == string(want) {
		return
	}
	if diff == nil {
		diff = Full("%s")
	}
	t.Errorf("%s differs (go test -run '%s' -update rewrites it if the change is meant):\n%s", path, t.Name(), diff(got, string(want)))
}

// Full shows both sides of a difference in full, each formatted with
// format ("%s", or "%q" where escapes are the content).
func Full(format string) func(got, want string) string {
	return func(got, want string) string {
		return fmt.Sprintf("--- got ---\n"+format+"\n--- want ---\n"+format, got, want)
	}
}
