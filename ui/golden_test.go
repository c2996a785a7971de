package ui

import (
	"os"
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

// TestMain runs the tests with colours whatever the shell says: the goldens
// are drawn as a colour terminal draws them (a test of NO_COLOR sets it).
func TestMain(m *testing.M) {
	os.Unsetenv("NO_COLOR")
	// A lesson played by keys waits for each key's quiet moment more than
	// it computes, so the package's tests all start at once whatever the
	// cores: its longest test, TestEveryLessonByKeysAlone, does not wait
	// for a slot behind the others.
	testrun.WaitMostly(8)
	pgtest.Main(m)
}

func TestBootPaneGolden(t *testing.T) {
	b := newBootPane(panetest.Styles())
	b.SetSize(80, 10)
	b, _ = b.Update(bootProgressMsg{pgProgress(0, "")})
	b, _ = b.Update(bootProgressMsg{pgProgress(3, "")})
	panetest.Golden(t, "boot_starting", b.View())
	b, _ = b.Update(bootDoneMsg{err: errString("no PostgreSQL binaries found: install postgresql or pass --pg-bin")})
	panetest.Golden(t, "boot_error", b.View())
}

func TestChooserGolden(t *testing.T) {
	c := newChooserPane(panetest.Styles(), "crash", panetest.Actors(), scenes.Settings{})
	panetest.Golden(t, "chooser_actor", c.View())
	c, _ = c.Update(panetest.KeyPress("down"))
	c, _ = c.Update(panetest.KeyPress("enter"))
	panetest.Golden(t, "chooser_checkpoint", c.View())
	c, _ = c.Update(panetest.KeyPress("down"))
	c, _ = c.Update(panetest.KeyPress("down"))
	_, cmd := c.Update(panetest.KeyPress("enter"))
	got := cmd().(faultChosenMsg).steps
	if len(got) != 1 || got[0].String() != "crash relay-1 at relay.published" {
		t.Errorf("chosen %v, want crash relay-1 at relay.published", got)
	}

	// A crashed actor's dialog is about restarting it, a stalled one's about
	// resuming it; the restart speaks of worker ids for a relay only.
	for _, c := range []struct{ fault, actor, title, note, not string }{
		{"crash", "relay-2", "restart relay-2?", "worker id", "when?"},
		{"crash", "outbox/accounting", "restart outbox/accounting?", "new connection", "relay"},
		{"stall", "notifications", "resume notifications?", "resume", "when?"},
	} {
		ch := newChooserPane(panetest.Styles(), c.fault, panetest.CompareActors(), scenes.Settings{})
		ch.actor = c.actor
		if c.fault == "crash" {
			ch.actorStates[c.actor] = sim.Crashed
		}
		ch.items = ch.whatItems()
		view := panetest.Plain(ch.View())
		if !strings.Contains(view, c.title) || !strings.Contains(view, c.note) || strings.Contains(view, c.not) {
			t.Errorf("%s %s: want %q and %q, not %q:\n%s", c.fault, c.actor, c.title, c.note, c.not, view)
		}
	}

	// In compare mode an actor both pipelines run can be hit in one only,
	// and f asks which writer's COMMIT fails.
	c = newChooserPane(panetest.Styles(), "crash", panetest.CompareActors(), scenes.Settings{})
	panetest.Golden(t, "chooser_compare", c.View())
	keys, err := keyPath(scenes.Step{Cmd: "crash", Args: []string{"outbox/accounting"}}, panetest.CompareActors(), scenes.Settings{Mode: "compare"})
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 4 {
		t.Fatalf("keys %v: want c, the actor, the pipeline, now", keys)
	}
	c, _ = c.Update(panetest.KeyPress(keys[1]))
	panetest.Golden(t, "chooser_compare_pipeline", c.View())
	c, _ = c.Update(panetest.KeyPress(keys[2]))
	_, cmd = c.Update(panetest.KeyPress(keys[3]))
	if got := cmd().(faultChosenMsg).steps; len(got) != 1 || got[0].String() != "crash outbox/accounting" {
		t.Errorf("%v chose %v, want crash outbox/accounting", keys, got)
	}
	f := newChooserPane(panetest.Styles(), "fail", panetest.CompareActors(), scenes.Settings{})
	f.naive = "publish-then-commit"
	_, cmd = f.Update(panetest.KeyPress("1"))
	if got := cmd().(faultChosenMsg).steps; len(got) != 1 || got[0].String() != "fail-commit naive at naive.published" {
		t.Errorf("f then 1 chose %v, want only the naive writer's commit", got)
	}
	_, cmd = f.Update(panetest.KeyPress("3"))
	if got := cmd().(faultChosenMsg).steps; len(got) != 2 {
		t.Errorf("f then 3 (both) chose %v", got)
	}
}
