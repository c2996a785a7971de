package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/lessons"
)

// `outboxlab lessons --lang es` says its own words in Spanish: the state of
// each lesson, the count and the pointer to --lesson; English stays as it was.
func TestLessonsListFollowsTheLanguage(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	p, err := lessons.LoadProgress(filepath.Join(state, "outboxlab", lessons.ProgressFile))
	if err != nil {
		t.Fatal(err)
	}
	p.MarkDone("dual-write", time.Unix(0, 0))
	p.MarkStep("phantom", 1)
	if err := p.Save(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		lang      string
		want, not []string
	}{
		{"en", []string{"[x] dual-write  done", "1/2 steps", "0/1 steps", "1 of 20 done · outboxlab --lesson NAME opens one"}, nil},
		{"es", []string{"[x] dual-write  hecha", "1/2 pasos", "0/1 paso ", "1 de 20 hechas · outboxlab --lesson NOMBRE abre una · progreso:"},
			[]string{" done", "steps", " of ", "opens one", "progress:"}},
	} {
		cmd := newLessons()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SetArgs([]string{"--lang", c.lang})
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%s: %v\n%s", c.lang, err, out.String())
		}
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s: no %q in\n%s", c.lang, w, out.String())
			}
		}
		for _, w := range c.not {
			if strings.Contains(out.String(), w) {
				t.Errorf("%s: English %q in\n%s", c.lang, w, out.String())
			}
		}
	}
	cmd := newLessons()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--lang", "es", "--reset", "phantom"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out.String()); got != "progreso borrado en phantom" {
		t.Errorf("es --reset says %q", got)
	}
}
