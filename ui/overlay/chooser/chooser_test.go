package chooser

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/internal/teadrive"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

func TestMain(m *testing.M) { panetest.Main(m) }

func TestChooserGolden(t *testing.T) {
	c := New(panetest.Styles(), "crash", panetest.Actors(), scenes.Settings{})
	panetest.Golden(t, "chooser_actor", c.View())
	c, _ = c.Update(teadrive.KeyPress("down"))
	c, _ = c.Update(teadrive.KeyPress("enter"))
	panetest.Golden(t, "chooser_checkpoint", c.View())
	c, _ = c.Update(teadrive.KeyPress("down"))
	c, _ = c.Update(teadrive.KeyPress("down"))
	_, cmd := c.Update(teadrive.KeyPress("enter"))
	got := cmd().(FaultChosenMsg).Steps
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
		ch := New(panetest.Styles(), c.fault, panetest.CompareActors(), scenes.Settings{})
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
	c = New(panetest.Styles(), "crash", panetest.CompareActors(), scenes.Settings{})
	panetest.Golden(t, "chooser_compare", c.View())
	// The actor's number, then the pipeline's (outbox), then now: the keys
	// a lesson's hint writes (ui's keyPath).
	keys := []string{fmt.Sprint(slices.IndexFunc(Actors(panetest.CompareActors()), func(a Actor) bool { return a.Name == "accounting" }) + 1),
		fmt.Sprint(slices.Index(PipelineChoices(), "outbox/") + 1), "1"}
	c, _ = c.Update(teadrive.KeyPress(keys[0]))
	panetest.Golden(t, "chooser_compare_pipeline", c.View())
	c, _ = c.Update(teadrive.KeyPress(keys[1]))
	_, cmd = c.Update(teadrive.KeyPress(keys[2]))
	if got := cmd().(FaultChosenMsg).Steps; len(got) != 1 || got[0].String() != "crash outbox/accounting" {
		t.Errorf("%v chose %v, want crash outbox/accounting", keys, got)
	}
	f := New(panetest.Styles(), "fail", panetest.CompareActors(), scenes.Settings{Naive: "publish-then-commit"})
	_, cmd = f.Update(teadrive.KeyPress("1"))
	if got := cmd().(FaultChosenMsg).Steps; len(got) != 1 || got[0].String() != "fail-commit naive at naive.published" {
		t.Errorf("f then 1 chose %v, want only the naive writer's commit", got)
	}
	_, cmd = f.Update(teadrive.KeyPress("3"))
	if got := cmd().(FaultChosenMsg).Steps; len(got) != 2 {
		t.Errorf("f then 3 (both) chose %v", got)
	}
}

// A dialog with ten choices says so: 1-9 and 0 for the tenth, which 0
// chooses.
func TestTheTenthChoiceIsZero(t *testing.T) {
	c := New(panetest.StylesIn("en"), "move", panetest.Actors(), scenes.Settings{})
	c.SetSize(80, 22)
	c, _ = c.Update(teadrive.KeyPress("2")) // relay-1: how far?
	// As many checkpoints as a relay with retries and dead letters has.
	for i := 0; len(c.items) < 10; i++ {
		cp := fmt.Sprintf("relay.cp%d", i)
		c.items = append(c.items, choice{label: "until " + cp, value: cp, note: "step it until it reaches " + cp})
	}
	n := len(c.items)
	view := panetest.Plain(c.View())
	if !strings.Contains(view, "1-9, 0 or ↑/↓") || strings.Contains(view, "1-9 or") {
		t.Errorf("a dialog of %d choices does not say 1-9, 0:\n%s", n, view)
	}
	if !strings.Contains(view, "0 "+c.items[9].label) {
		t.Errorf("the tenth choice is not numbered 0:\n%s", view)
	}
	_, cmd := c.Update(teadrive.KeyPress("0"))
	if cmd == nil {
		t.Fatalf("0 chose nothing among %d choices", n)
	}
	if msg, ok := cmd().(FaultChosenMsg); !ok || len(msg.Steps) == 0 {
		t.Errorf("0 gave %v", fmt.Sprint(cmd()))
	}
}

// A digit beyond a dialog's list says so instead of doing nothing.
func TestDialogDigitBeyondTheList(t *testing.T) {
	c := New(panetest.Styles(), "fail", panetest.CompareActors(), scenes.Settings{})
	c, cmd := c.Update(teadrive.KeyPress("7"))
	if cmd != nil || !strings.Contains(panetest.Plain(c.View()), "no choice 7 here: 1 to 3") {
		t.Fatalf("f 7 said nothing:\n%s", panetest.Plain(c.View()))
	}
}
