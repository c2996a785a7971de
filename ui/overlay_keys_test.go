package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/internal/teadrive"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/ui/overlay/chooser"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

// The full help is read, not typed under: an enter pressed under it in a
// lesson whose step passed does not move to the next step; esc closes it.
func TestNoKeyPassesUnderTheHelp(t *testing.T) {
	course, err := lessons.Load("en")
	if err != nil {
		t.Fatal(err)
	}
	m := fixtureModelIn(t, 80, 24, "", 3, "en")
	m.sim = &sim.Sim{}
	m.learnCourse(course)
	m.openLesson(course[0])
	m.lesson.SetOutcomes(nil, true) // the step passed: enter would go on
	m.updateKeys()
	m = send(t, m, teadrive.KeyPress("?"))
	if !m.help.ShowAll {
		t.Fatal("? did not open the help")
	}
	m = send(t, m, teadrive.KeyPress("enter"))
	if m.lesson.Step() != 0 || m.lesson.Place() != lessons.PlacePassed || !m.help.ShowAll {
		t.Fatalf("enter under the help: step %d, place %s, help open %v", m.lesson.Step()+1, m.lesson.Place(), m.help.ShowAll)
	}
	m = send(t, m, teadrive.KeyPress("esc"))
	if m.help.ShowAll {
		t.Fatal("esc did not close the help")
	}
}

// A hint's key path for an actor both pipelines run is the keys the
// dialog takes: c, the actor's number, the pipeline's, now.
func TestKeyPathDrivesTheChooser(t *testing.T) {
	keys, err := keyPath(scenes.Step{Cmd: "crash", Args: []string{"outbox/accounting"}}, panetest.CompareActors(), scenes.Settings{Mode: "compare"})
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 4 {
		t.Fatalf("keys %v: want c, the actor, the pipeline, now", keys)
	}
	c := chooser.New(panetest.Styles(), "crash", panetest.CompareActors(), scenes.Settings{})
	var cmd tea.Cmd
	for _, k := range keys[1:] {
		c, cmd = c.Update(teadrive.KeyPress(k))
	}
	if got := cmd().(chooser.FaultChosenMsg).Steps; len(got) != 1 || got[0].String() != "crash outbox/accounting" {
		t.Errorf("%v chose %v, want crash outbox/accounting", keys, got)
	}
}
