package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// A golden file that matches passes; -update writes one where there was none.
func TestCheckComparesAndUpdateWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "view.golden")
	*update = true
	Check(t, path, "hello\n", nil)
	*update = false
	if b, err := os.ReadFile(path); err != nil || string(b) != "hello\n" {
		t.Fatalf("-update wrote %q, %v", b, err)
	}
	Check(t, path, "hello\n", nil)
	if Updating() {
		t.Error("Updating() with -update off")
	}
}

func TestFullShowsBothSides(t *testing.T) {
	if got, want := Full("%q")("a\x1b", "b"), "--- got ---\n\"a\\x1b\"\n--- want ---\n\"b\""; got != want {
		t.Errorf("Full = %q, want %q", got, want)
	}
}
