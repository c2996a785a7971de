package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/sim"
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
	m.lesson.setOutcomes(nil, true) // the step passed: enter would go on
	m.updateKeys()
	m = send(t, m, panetest.KeyPress("?"))
	if !m.help.ShowAll {
		t.Fatal("? did not open the help")
	}
	m = send(t, m, panetest.KeyPress("enter"))
	if m.lesson.step != 0 || m.lesson.place != placePassed || !m.help.ShowAll {
		t.Fatalf("enter under the help: step %d, place %d, help open %v", m.lesson.step+1, m.lesson.place, m.help.ShowAll)
	}
	m = send(t, m, panetest.KeyPress("esc"))
	if m.help.ShowAll {
		t.Fatal("esc did not close the help")
	}
}

// A dialog with ten choices says so: 1-9 and 0 for the tenth, which 0
// chooses.
func TestTheTenthChoiceIsZero(t *testing.T) {
	m := fixtureModelIn(t, 80, 24, "", 3, "en")
	c := newChooserPane(m.st, "move", panetest.Actors(), m.settings)
	c.SetSize(80, 22)
	c, _ = c.Update(panetest.KeyPress("2")) // relay-1: how far?
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
	_, cmd := c.Update(panetest.KeyPress("0"))
	if cmd == nil {
		t.Fatalf("0 chose nothing among %d choices", n)
	}
	if msg, ok := cmd().(faultChosenMsg); !ok || len(msg.steps) == 0 {
		t.Errorf("0 gave %v", fmt.Sprint(cmd()))
	}
}
