package testdir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMakeIsUnderTheRootAndSearchable(t *testing.T) {
	want := t.TempDir()
	t.Setenv(EnvRoot, want)
	if got := Root(); got != want {
		t.Fatalf("Root with %s set: %q, want %q", EnvRoot, got, want)
	}
	dir, err := Make("x-")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(dir) != want {
		t.Errorf("made %s, not in %s", dir, want)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("mode of %s: %v %v, want 0755", dir, fi.Mode(), err)
	}
}

func TestMakeSaysWhatToSetWhenTheRootIsMissing(t *testing.T) {
	t.Setenv(EnvRoot, filepath.Join(t.TempDir(), "missing"))
	if _, err := Make("x-"); err == nil {
		t.Fatal("made a directory under a root that does not exist")
	}
}

func TestNoRAMDirWithoutTheRoom(t *testing.T) {
	if d := ramDir(1 << 62); d != "" {
		t.Errorf("ramDir with 4 EiB asked: %q", d)
	}
}
