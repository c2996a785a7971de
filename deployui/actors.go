package deployui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/deploy"
	"github.com/outboxlab/outboxlab/engine/fault"
	"github.com/outboxlab/outboxlab/screen"
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
	st      *screen.Styles
	keys    liveActorsKeys
	w, h    int
	actors  []deploy.Actor
	now     time.Time
	ackWait time.Duration
	// stream is the broker's stream, said below the actors; ok false for
	// none.
	stream   deploy.StreamSettings
	streamOK bool
	// choosing is the fault (fault.Crash, fault.Stall) waiting for
	// its actor's digit; "" when none.
	choosing fault.Fault
}

// liveActorChosenMsg is the actor a fault is for (actor "" gave up).
type liveActorChosenMsg struct {
	fault fault.Fault
	actor string
}

func newLiveActorsPane(st *screen.Styles, keys KeyMap, ackWait time.Duration, stream deploy.StreamSettings, streamOK bool) liveActorsPane {
	return liveActorsPane{st: st, keys: liveActorsKeys{Actor: keys.Actor, Cancel: keys.Cancel}, ackWait: ackWait,
		stream: stream, streamOK: streamOK}
}

func (p *liveActorsPane) SetSize(w, h int) { p.w, p.h = w, h }

func (p liveActorsPane) ShortHelp() []key.Binding  { return p.keys.ShortHelp() }
func (p liveActorsPane) FullHelp() [][]key.Binding { return p.keys.FullHelp() }

// choose waits for the digit of fault's actor.
func (p *liveActorsPane) choose(f fault.Fault) {
	p.choosing = f
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

// View draws each actor, its digit, name and state (the state wrapped
// under itself when the pane is narrow: nothing it says is cut), then
// the stream's promises.
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
		head := fmt.Sprintf("%s %-*s  ", st.Live.Index.Render(fmt.Sprintf("%d", i+1)), nameW, a.Name)
		indent := lipgloss.Width(head)
		state := p.state(a)
		// A state that does not fit beside the name goes under it, two
		// in, wrapped there.
		if lipgloss.Width(state) > p.w-indent {
			lines = append(lines, strings.TrimRight(head, " "))
			indent = 2
			head = "  "
		}
		for j, l := range strings.Split(ansi.Wrap(state, max(p.w-indent, 8), " "), "\n") {
			if j == 0 {
				lines = append(lines, head+l)
			} else {
				lines = append(lines, strings.Repeat(" ", indent)+l)
			}
		}
	}
	if len(p.actors) == 0 {
		lines = append(lines, st.Pane.Empty.Render(w.Word("reading the actors…")))
	}
	if p.streamOK {
		lines = append(append(lines, ""), p.streamLines()...)
	}
	return strings.Join(screen.FitLines(squeezeBlank(lines, p.h), p.w, p.h), "\n")
}

// streamLines say what the stream promises: how long an id is
// deduplicated, when a message leaves, when a delivery comes again, how
// many servers hold it.
func (p liveActorsPane) streamLines() []string {
	st, w, s := p.st, p.st.Words, p.stream
	replicas := "?"
	if s.Replicas > 0 {
		replicas = fmt.Sprint(s.Replicas)
	}
	labels := []string{w.Word("dedup window"), w.Word("retention"), "AckWait", w.Word("replicas")}
	values := []string{s.Dedup.String(), w.Word(s.Retention), s.AckWait.String(), replicas}
	labelW := 0
	for _, l := range labels {
		labelW = max(labelW, lipgloss.Width(l))
	}
	lines := []string{st.Figures.Heading.Render(w.Word("Stream")) + " " + st.Live.Why.Render(s.Name)}
	for i, l := range labels {
		lines = append(lines, st.Figures.Label.Render(screen.Pad(l, labelW))+"  "+st.Figures.Value.Render(values[i]))
	}
	return lines
}

// squeezeBlank drops blank lines, last first, while lines are more than h: the
// spacing goes before a figure does.
func squeezeBlank(lines []string, h int) []string {
	for i := len(lines) - 1; i >= 0 && len(lines) > h; i-- {
		if strings.TrimSpace(ansi.Strip(lines[i])) == "" {
			lines = append(lines[:i:i], lines[i+1:]...)
		}
	}
	return lines
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
	case deploy.ActorWaiting:
		s = st.Live.Stalled.Render(w.Word("◌ waiting on the broker"))
	default:
		s = st.Live.Running.Render(w.Word("● running"))
	}
	switch a.Armed {
	case fault.Crash:
		s += " " + st.Live.Armed.Render(w.Word("⚑ crash at its next checkpoint"))
	case fault.Stall:
		s += " " + st.Live.Armed.Render(w.Word("⚑ stall at its next checkpoint"))
	}
	if a.Restarts > 0 {
		s += " " + st.Live.Why.Render(w.T("restarts: %d", a.Restarts))
	}
	return s
}
