package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/deploy"
)

// liveActorsKeys are the actors pane's: while a fault waits for its actor,
// a digit picks one, esc gives up.
type liveActorsKeys struct {
	Actor, Cancel key.Binding
}

func (k liveActorsKeys) ShortHelp() []key.Binding  { return []key.Binding{k.Actor, k.Cancel} }
func (k liveActorsKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// liveActorsPane lists the deployment's actors, numbered, with each one's
// state as its supervisor and faults know it.
type liveActorsPane struct {
	st      *Styles
	keys    liveActorsKeys
	w, h    int
	actors  []deploy.Actor
	now     time.Time
	ackWait time.Duration
	// choosing is the fault (deploy.FaultCrash, FaultStall) waiting for
	// its actor's digit; "" when none.
	choosing string
}

// liveActorChosenMsg is the actor a fault is for (actor "" gave up).
type liveActorChosenMsg struct{ fault, actor string }

func newLiveActorsPane(st *Styles, keys LiveKeyMap, ackWait time.Duration) liveActorsPane {
	return liveActorsPane{st: st, keys: liveActorsKeys{Actor: keys.Actor, Cancel: keys.Cancel}, ackWait: ackWait}
}

func (p *liveActorsPane) SetSize(w, h int) { p.w, p.h = w, h }

func (p liveActorsPane) ShortHelp() []key.Binding  { return p.keys.ShortHelp() }
func (p liveActorsPane) FullHelp() [][]key.Binding { return p.keys.FullHelp() }

// choose waits for the digit of fault's actor.
func (p *liveActorsPane) choose(fault string) {
	p.choosing = fault
	p.keys.Actor.SetHelp(fmt.Sprintf("1-%d", max(len(p.actors), 1)), p.keys.Actor.Help().Desc)
	p.keys.Actor.SetEnabled(true)
	p.keys.Cancel.SetEnabled(true)
}

func (p *liveActorsPane) chosen() {
	p.choosing = ""
	p.keys.Actor.SetEnabled(false)
	p.keys.Cancel.SetEnabled(false)
}

// Update takes the snapshot's actors and, while choosing, the digits.
func (p liveActorsPane) Update(msg tea.Msg) (liveActorsPane, tea.Cmd) {
	switch msg := msg.(type) {
	case liveSnapshotMsg:
		p.actors, p.now = msg.actors, msg.snap.At
	case tea.KeyPressMsg:
		if p.choosing == "" {
			return p, nil
		}
		fault := p.choosing
		switch {
		case key.Matches(msg, p.keys.Cancel):
			p.chosen()
			return p, func() tea.Msg { return liveActorChosenMsg{fault: fault} }
		case key.Matches(msg, p.keys.Actor):
			i := int(msg.String()[0] - '1')
			p.chosen()
			actor := fmt.Sprintf("#%d", i+1) // no such actor: the root says so
			if i < len(p.actors) {
				actor = p.actors[i].Name
			}
			return p, func() tea.Msg { return liveActorChosenMsg{fault: fault, actor: actor} }
		}
	}
	return p, nil
}

// View draws one line per actor: its digit, name and state.
func (p liveActorsPane) View() string {
	st, w := p.st, p.st.Words
	title := st.Pane.Title.Render(w.Word("Actors"))
	if p.choosing != "" {
		title = st.Pane.TitleFocused.Render(w.Word("Actors"))
	}
	lines := []string{title}
	nameW := 0
	for _, a := range p.actors {
		nameW = max(nameW, len(a.Name))
	}
	for i, a := range p.actors {
		line := fmt.Sprintf("%s %-*s  %s", st.Live.Index.Render(fmt.Sprintf("%d", i+1)), nameW, a.Name, p.state(a))
		lines = append(lines, line)
	}
	if len(p.actors) == 0 {
		lines = append(lines, st.Pane.Empty.Render(w.Word("reading the actors…")))
	}
	return strings.Join(fitLines(lines, p.w, p.h), "\n")
}

// state says what a is doing, and for how long.
func (p liveActorsPane) state(a deploy.Actor) string {
	st, w := p.st, p.st.Words
	left := func() string { return a.Until.Sub(p.now).Round(time.Second).String() }
	var s string
	switch a.State {
	case deploy.ActorStalled:
		s = st.Live.Stalled.Render(w.T("‖ stalled, resumes in %s", left()))
		if p.ackWait > 0 {
			s += " " + st.Live.Why.Render(w.T("(AckWait %s)", p.ackWait))
		}
	case deploy.ActorCrashed:
		s = st.Live.Crashed.Render(w.T("✗ crashed, restarting in %s", left()))
	default:
		s = st.Live.Running.Render(w.Word("● running"))
	}
	switch a.Armed {
	case deploy.FaultCrash:
		s += " " + st.Live.Armed.Render(w.Word("⚑ crash at its next checkpoint"))
	case deploy.FaultStall:
		s += " " + st.Live.Armed.Render(w.Word("⚑ stall at its next checkpoint"))
	}
	if a.Restarts > 0 {
		s += " " + st.Live.Why.Render(w.T("restarts: %d", a.Restarts))
	}
	return s
}
