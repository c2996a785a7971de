package pipeline

import (
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

func TestMain(m *testing.M) { panetest.Main(m) }

func TestPipelinePaneGolden(t *testing.T) {
	for _, tc := range []struct {
		name   string
		w, h   int
		actors []sim.ActorView
	}{
		{"pipeline_outbox_120", 120, 9, panetest.Actors()},
		{"pipeline_outbox_80", 80, 5, panetest.Actors()},
		{"pipeline_compare_120", 120, 13, panetest.CompareActors()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(panetest.Styles())
			p, _ = p.Update(ActorsMsg{tc.actors})
			p, _ = p.Update(OraclesMsg{panetest.Oracles()})
			p, _ = p.Update(EdgesMsg{[]sim.Edge{
				{Pipeline: "outbox", From: "postgres", To: "relay", Queued: 2, Unacked: 1},
				{Pipeline: "outbox", From: "broker", To: "accounting", Queued: 1, Unacked: 1},
				{Pipeline: "outbox", From: "broker", To: "notifications"},
			}})
			p.SetSize(tc.w, tc.h)
			panetest.Golden(t, tc.name, p.View())
		})
	}
}

// d arms a duplicate on the broker: the pipeline shows it armed (⚑) until
// the delivery it doubles.
func TestArmedDuplicateShowsOnTheBroker(t *testing.T) {
	p := New(panetest.Styles())
	actors := panetest.Actors()
	for i := range actors {
		actors[i].State = sim.Idle
		if actors[i].Name == "broker" {
			actors[i].Armed = []string{"duplicate"}
		}
	}
	p, _ = p.Update(ActorsMsg{actors})
	p.SetSize(120, 6)
	if v := panetest.Plain(p.View()); !strings.Contains(v, "broker ⚑ duplicate") {
		t.Errorf("the armed duplicate is not on the broker:\n%s", v)
	}
}

// At 80×24 a pipeline with four consumers is drawn one line per actor: the
// names stay whole ("broker ○ ar…" lost them), an idle actor's state being
// its symbol when the words do not fit.
func TestFourConsumersAt80KeepTheirNames(t *testing.T) {
	actors := []sim.ActorView{
		{Pipeline: "outbox", Name: "api", State: sim.Idle},
		{Pipeline: "outbox", Name: "relay-1", State: sim.Idle},
		{Pipeline: "outbox", Name: "relay-2", State: sim.Idle},
		{Pipeline: "outbox", Name: "broker", State: sim.Idle},
		{Pipeline: "outbox", Name: "accounting", State: sim.Idle},
		{Pipeline: "outbox", Name: "accounting-2", State: sim.Idle},
		{Pipeline: "outbox", Name: "notifications", State: sim.Idle},
		{Pipeline: "outbox", Name: "sender", State: sim.Crashed, At: "sender.called"},
	}
	p := New(panetest.Styles())
	p, _ = p.Update(ActorsMsg{actors})
	p, _ = p.Update(OraclesMsg{panetest.Oracles()})
	p.SetSize(80, 5)
	view := panetest.Plain(p.View())
	for _, name := range []string{"broker ○", "accounting ○", "accounting-2 ○", "notifications ○", "sender ✗ crashed"} {
		if !strings.Contains(view, name) {
			t.Errorf("%q is not drawn whole:\n%s", name, view)
		}
	}
}
