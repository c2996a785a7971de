package chooser

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/fault"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/screen"
	"github.com/outboxlab/outboxlab/sim"
)

// Pane is the small dialog behind c, s, m and T: for c and s first
// which actor, then now or at which checkpoint (or restart a crashed actor,
// resume a stalled one); for m which actor, then one step, finish, or until
// a checkpoint; for T how far to move the clock. Every item has a number:
// its digit chooses it at once, which is how hints write key paths.
type Pane struct {
	st    *screen.Styles
	keys  keyMap
	w, h  int
	fault string // crash | stall | move | advance | fail
	// pickPipeline: the actor chosen runs in both pipelines, and the
	// pipeline is the question on screen.
	pickPipeline bool
	warn         string // a digit beyond the list: said, not ignored
	shared       map[string]bool
	actor        string // "" while choosing the actor
	items        []choice
	cur          int

	actorStates map[string]sim.ActorState
	set         scenes.Settings // which checkpoints a relay reaches (relay: cdc has its own); for fail, the naive writer's order
}

// choice is one answer of the dialog: what it says, what it means, and a
// note beside it.
type choice struct {
	label string
	value string
	note  string
}

// keyMap is the dialog's keys: a digit chooses at once, the arrows and
// enter as in any list.
type keyMap struct{ Up, Down, Choose, Number, Back key.Binding }

// FaultChosenMsg is the commands the dialog built (fail in compare mode,
// both pipelines: two).
type FaultChosenMsg struct{ Steps []scenes.Step }

// CloseMsg closes the dialog without doing anything.
type CloseMsg struct{}

// New is the dialog of fault (crash, stall, move, advance or fail) over
// the actors on screen, for a simulation on set.
func New(st *screen.Styles, fault string, actors []sim.ActorView, set scenes.Settings) Pane {
	c := Pane{st: st, fault: fault, set: set, keys: keyMap{
		Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑", st.Words.T("up"))),
		Down:   key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓", st.Words.T("down"))),
		Choose: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", st.Words.T("choose"))),
		Number: key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9", "0"), key.WithHelp("1-9", st.Words.T("choose by number"))),
		Back:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", st.Words.T("cancel"))),
	}}
	if fault == "advance" {
		c.actor = "clock"
		c.items = c.whatItems()
		return c
	}
	if fault == "fail" {
		// Compare mode runs two writers: which one's next COMMIT fails.
		c.actor = "writer"
		w := st.Words
		c.items = []choice{
			{label: "naive", value: "naive", note: w.T("the dual write's next COMMIT")},
			{label: "api", value: "api", note: w.T("the outbox writer's next COMMIT")},
			{label: w.T("both"), value: "both", note: w.T("each pipeline's writer")},
		}
		return c
	}
	c.actorStates = map[string]sim.ActorState{}
	c.shared = map[string]bool{}
	w := st.Words
	for _, a := range Actors(actors) {
		note := w.Word(a.View.State.String())
		if a.View.At != "" {
			note += " " + w.T("at %s", string(a.View.At))
		}
		label := a.Name
		if a.Shared {
			label += " (naive, outbox)"
		}
		c.items = append(c.items, choice{label: label, value: a.Name, note: note})
		c.shared[a.Name] = a.Shared
	}
	for _, a := range actors {
		c.actorStates[a.Pipeline+"/"+a.Name] = a.State
		// Both pipelines' copy: crashed if either is (restart brings back
		// the crashed one), else stalled if either is.
		if st, ok := c.actorStates[a.Name]; !ok || a.State == sim.Crashed || a.State == sim.Stalled && st != sim.Crashed {
			c.actorStates[a.Name] = a.State
		}
	}
	return c
}

// SetSize is the body's room: the dialog is drawn centred over it, and
// fits it.
func (c *Pane) SetSize(w, h int) { c.w, c.h = w, h }

// ShortHelp is the dialog's keys, the digits as many as it has choices.
func (c Pane) ShortHelp() []key.Binding {
	n := c.keys.Number
	n.SetHelp(digitsFor(len(c.items)), n.Help().Desc)
	return []key.Binding{n, c.keys.Up, c.keys.Down, c.keys.Choose, c.keys.Back}
}

// digitsFor is how the dialog's n choices are chosen by digit: 1 to n,
// and 0 for a tenth.
func digitsFor(n int) string {
	switch {
	case n <= 1:
		return "1"
	case n <= 9:
		return fmt.Sprintf("1-%d", n)
	}
	return "1-9, 0"
}

// Actor is one actor a chooser lists, by name, with its state; Shared
// says both pipelines run one of that name (compare mode), so the chooser
// then asks which pipeline's.
type Actor struct {
	Name   string
	View   sim.ActorView
	Shared bool
}

// Actors are the actors a chooser lists, in its numbered order: the
// pipeline view's order, the broker left out, each name once. A key path
// (a lesson's hint) numbers them the same way.
func Actors(actors []sim.ActorView) []Actor {
	var out []Actor
	at := map[string]int{}
	for _, a := range actors {
		if a.Name == "broker" {
			continue
		}
		if i, ok := at[a.Name]; ok {
			out[i].Shared = true
			continue
		}
		at[a.Name] = len(out)
		out = append(out, Actor{Name: a.Name, View: a})
	}
	return out
}

// PipelineChoices are the answers to "which pipeline's?" for a shared
// actor, in their numbered order: both, naive, outbox.
func PipelineChoices() []string { return []string{"", "naive/", "outbox/"} }

func (c Pane) pipelineItems() []choice {
	w := c.st.Words
	return []choice{
		{label: w.T("both"), value: "", note: w.T("the naive pipeline's and the outbox pipeline's")},
		{label: "naive", value: "naive/", note: w.T("the dual write's only")},
		{label: "outbox", value: "outbox/", note: w.T("the outbox pipeline's only")},
	}
}

// FullHelp is the dialog's keys.
func (c Pane) FullHelp() [][]key.Binding { return [][]key.Binding{c.ShortHelp()} }

// Update moves, chooses (a digit, or enter) and goes on to the next
// question, until the commands are built (FaultChosenMsg); esc cancels
// (CloseMsg).
func (c Pane) Update(msg tea.Msg) (Pane, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return c, nil
	}
	switch {
	case key.Matches(k, c.keys.Up):
		c.cur = (c.cur + len(c.items) - 1) % max(1, len(c.items))
	case key.Matches(k, c.keys.Down):
		c.cur = (c.cur + 1) % max(1, len(c.items))
	case key.Matches(k, c.keys.Back):
		return c, func() tea.Msg { return CloseMsg{} }
	case key.Matches(k, c.keys.Number):
		i := int(k.String()[0] - '1')
		if k.String() == "0" {
			i = 9 // the tenth choice: 0, as on a keyboard's row of digits
		}
		if i >= len(c.items) {
			c.warn = c.st.Words.T("no choice %d here: 1 to %d", i+1, len(c.items))
			return c, nil
		}
		c.warn = ""
		c.cur = i
		return c.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	case key.Matches(k, c.keys.Choose):
		if len(c.items) == 0 {
			return c, func() tea.Msg { return CloseMsg{} }
		}
		it := c.items[c.cur]
		if c.actor == "" {
			c.actor = it.value
			c.cur = 0
			if c.shared[it.value] {
				c.pickPipeline, c.items = true, c.pipelineItems()
				return c, nil
			}
			c.items = c.whatItems()
			return c, nil
		}
		if c.pickPipeline {
			c.actor, c.pickPipeline = it.value+c.actor, false
			c.items, c.cur = c.whatItems(), 0
			return c, nil
		}
		steps := c.steps(it.value)
		return c, func() tea.Msg { return FaultChosenMsg{steps} }
	}
	return c, nil
}

// AdvanceBy are the clock moves T offers, in their numbered order: short
// ones for a retry's backoff, one past the default lease and ack timeout,
// long ones for retention.
func AdvanceBy() []string { return []string{"1s", "3s", "10s", "31s", "2m", "5m"} }

// whatItems are the second question's answers for the chosen actor.
func (c Pane) whatItems() []choice {
	state := c.actorStates[c.actor]
	w := c.st.Words
	switch c.fault {
	case "advance":
		var out []choice
		for _, d := range AdvanceBy() {
			out = append(out, choice{label: d, value: d, note: w.T("the virtual clock moves %s forward", d)})
		}
		return out
	case "move":
		out := []choice{
			{label: w.T("one step"), value: "step", note: w.T("to its next checkpoint")},
			{label: w.T("finish"), value: "finish", note: w.T("until it has nothing left to do")},
		}
		for _, cp := range Checkpoints(c.set, c.actor) {
			out = append(out, choice{label: w.T("until %s", cp), value: cp, note: w.T("step it until it reaches %s", cp)})
		}
		return out
	}
	switch {
	case c.fault == "crash" && state == sim.Crashed:
		note := w.T("a new process with a new connection")
		if strings.HasPrefix(c.actorName(), "relay") { // relay, relay-2…
			note = w.T("a new process with a new worker id: its old leases are not its own")
		}
		return []choice{{label: w.T("restart"), value: "restart", note: note}}
	case c.fault == "stall" && state == sim.Stalled:
		return []choice{{label: w.T("resume"), value: "resume", note: w.T("let it go on, unaware of the time that passed")}}
	}
	var out []choice
	if c.fault == "crash" {
		out = append(out, choice{label: w.T("now"), value: "now", note: w.T("kill it where it is")})
	}
	for _, cp := range Checkpoints(c.set, c.actor) {
		out = append(out, choice{label: w.T("at %s", cp), value: cp, note: w.T("when it next reaches %s", cp)})
	}
	return out
}

// actorName is the chosen actor without its pipeline ("outbox/accounting"
// is accounting).
func (c Pane) actorName() string {
	_, name, _ := strings.Cut(c.actor, "/")
	if name == "" {
		return c.actor
	}
	return name
}

func (c Pane) steps(what string) []scenes.Step {
	if c.fault == "fail" {
		set := scenes.Settings{Mode: "compare", Naive: c.set.Naive}
		switch what {
		case "naive":
			return []scenes.Step{FailCommit("naive", set)}
		case "api":
			return []scenes.Step{FailCommit("outbox", set)}
		}
		return []scenes.Step{FailCommit("naive", set), FailCommit("outbox", set)}
	}
	return []scenes.Step{c.step(what)}
}

func (c Pane) step(what string) scenes.Step {
	switch c.fault {
	case "advance":
		d, _ := time.ParseDuration(what) // the dialog's own choices
		return scenes.Advance(d)
	case "move":
		switch what {
		case scenes.CmdStep:
			return scenes.StepActor(c.actor)
		case scenes.CmdFinish:
			return scenes.Finish(c.actor)
		}
		return scenes.Until(c.actor, engine.Checkpoint(what))
	}
	switch what {
	case scenes.CmdRestart:
		return scenes.Restart(c.actor)
	case scenes.CmdResume:
		return scenes.Resume(c.actor)
	case "now":
		return scenes.CrashNow(c.actor)
	}
	return scenes.Arm(fault.Fault(c.fault), c.actor, engine.Checkpoint(what))
}

// Checkpoints lists the checkpoints an actor can reach under set, in the
// dialog's numbered order.
func Checkpoints(set scenes.Settings, actor string) []string {
	var out []string
	for _, cp := range set.CheckpointsFor(actor) {
		out = append(out, string(cp))
	}
	return out
}

// View draws the dialog's box: the question, the numbered choices with
// their notes where they fit, and the keys.
func (c Pane) View() string {
	ds := c.st.Dialog
	w := c.st.Words
	verb := w.Word(c.fault)
	q := w.T("%s which actor?", verb)
	switch c.fault {
	case "crash":
		q = w.T("crash which actor?")
	case "stall":
		q = w.T("stall which actor?")
	case "move":
		q = w.T("move which actor?")
	}
	switch {
	case c.fault == "advance":
		q = w.T("advance the clock by?")
	case c.fault == "fail":
		q = w.T("fail the next COMMIT of which writer?")
	case c.pickPipeline:
		q = w.T("%s which pipeline's %s?", verb, c.actor)
	case c.fault == "move" && c.actor != "":
		q = w.T("move %s how far?", c.actor)
	case c.fault == "crash" && c.actorStates[c.actor] == sim.Crashed:
		// A crashed actor's only choice is to bring it back.
		q = w.T("restart %s?", c.actor)
	case c.fault == "stall" && c.actorStates[c.actor] == sim.Stalled:
		q = w.T("resume %s?", c.actor)
	case c.actor != "":
		q = w.T("%s %s when?", verb, c.actor)
	}
	// The box fits the body: its border and padding take four cells, and
	// every text in it wraps to what is left (a note too long for the line
	// goes under its item, indented; when even that is too tall, the notes
	// are left out).
	room := 200
	if c.w > 0 {
		room = max(20, c.w-4)
	}
	wrap := func(s string, width, hang int) []string { return screen.WrapWhole(s, width, hang) }
	lines := append(wrap(q, room, 0), "")
	for i, l := range lines {
		if l != "" {
			lines[i] = ds.Title.Render(l)
		}
	}
	lw := 26
	for i, it := range c.items {
		lw = max(lw, ansi.StringWidth(fmt.Sprintf("%d %s", (i+1)%10, it.label))+2)
	}
	lw = min(lw, room)
	items := func(notes bool) []string {
		var out []string
		for i, it := range c.items {
			mark := "  "
			s := ds.Item
			if i == c.cur {
				mark, s = "▸ ", ds.Selected
			}
			label := screen.Pad(fmt.Sprintf("%d %s", (i+1)%10, it.label), lw)
			line := s.Render(mark + label)
			switch {
			case !notes || it.note == "":
			case 2+lw+1+ansi.StringWidth(it.note) <= room:
				line += " " + ds.Hint.Render(it.note)
			default:
				out = append(out, line)
				for _, n := range wrap(it.note, room-4, 0) {
					out = append(out, "    "+ds.Hint.Render(n))
				}
				continue
			}
			out = append(out, line)
		}
		return out
	}
	foot := wrap(w.T("%s or ↑/↓ enter choose · esc cancel", digitsFor(len(c.items))), room, 0)
	list := items(true)
	if c.h > 0 && len(lines)+len(list)+1+len(foot)+3 > c.h {
		list = items(false)
	}
	lines = append(lines, list...)
	lines = append(lines, "")
	for _, f := range foot {
		lines = append(lines, ds.Hint.Render(f))
	}
	if c.warn != "" {
		for _, l := range wrap(c.warn, room, 0) {
			lines = append(lines, ds.Title.Render(l))
		}
	}
	return ds.Box.Render(strings.Join(lines, "\n"))
}

// FailCommit arms a failed COMMIT on the writer of pipeline kind, at the
// checkpoint that comes just before its COMMIT: what f does, asked here
// which writer in compare mode.
func FailCommit(kind string, set scenes.Settings) scenes.Step {
	if kind == "naive" {
		at := engine.NaiveInserted
		if set.Naive == "publish-then-commit" {
			at = engine.NaivePublished
		}
		return scenes.Arm(fault.FailCommit, "naive", at)
	}
	return scenes.Arm(fault.FailCommit, "api", engine.APIInserted)
}
