package lessons

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Progress survives a restart (saved, then loaded by a fresh Progress from
// the same file) and can be reset, one lesson or all.
func TestProgressSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "outboxlab", ProgressFile)
	p, err := LoadProgress(path)
	if err != nil {
		t.Fatal(err)
	}
	if p.Done("inbox") || len(p.DoneNames()) != 0 {
		t.Fatal("fresh progress is not empty")
	}
	when := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	p.MarkStep("inbox", 2)
	p.MarkStep("inbox", 1) // never goes back
	p.MarkDone("inbox", when)
	p.MarkDone("relay", when)
	p.MarkStep("lease", 1)
	if err := p.Save(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("state directory: %v %v", st.Mode(), err)
	}

	q, err := LoadProgress(path) // a new process
	if err != nil {
		t.Fatal(err)
	}
	if !q.Done("inbox") || !q.Done("relay") || q.Done("lease") || q.Steps("inbox") != 2 || q.Steps("lease") != 1 {
		t.Errorf("after restart: %+v", q.Lessons)
	}
	if got := q.Lessons["inbox"].DoneAt; !got.Equal(when) {
		t.Errorf("done at %v, want %v", got, when)
	}
	if got := q.DoneNames(); !slices.Equal(got, []string{"inbox", "relay"}) {
		t.Errorf("DoneNames %v", got)
	}

	q.Reset("inbox")
	if err := q.Save(); err != nil {
		t.Fatal(err)
	}
	r, _ := LoadProgress(path)
	if r.Done("inbox") || r.Steps("inbox") != 0 || !r.Done("relay") {
		t.Errorf("after reset of inbox: %+v", r.Lessons)
	}
	r.Reset()
	if err := r.Save(); err != nil {
		t.Fatal(err)
	}
	r, _ = LoadProgress(path)
	if len(r.Lessons) != 0 {
		t.Errorf("after reset of all: %+v", r.Lessons)
	}
}

func TestProgressPath(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", dir)
	got, err := ProgressPath()
	if err != nil || got != filepath.Join(dir, "outboxlab", ProgressFile) {
		t.Errorf("with XDG_STATE_HOME: %q %v", got, err)
	}
	home := t.TempDir()
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", home)
	got, err = ProgressPath()
	if err != nil || got != filepath.Join(home, ".local", "state", "outboxlab", ProgressFile) {
		t.Errorf("with HOME: %q %v", got, err)
	}
}

func TestProgressCorruptFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), ProgressFile)
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadProgress(path); err == nil {
		t.Error("a corrupt progress file loaded")
	}
}
