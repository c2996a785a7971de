package ui

import (
	"slices"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/screen"
)

// KeyMap holds the simulator's global keys. A key that does not apply now
// (compare view outside compare mode, resend before any request) is disabled
// and so vanishes from the help.
type KeyMap struct {
	Play      key.Binding
	Step      key.Binding
	Move      key.Binding
	Drain     key.Binding
	Crash     key.Binding
	Stall     key.Binding
	Duplicate key.Binding
	Broker    key.Binding
	RestartPG key.Binding
	FailNext  key.Binding
	Payment   key.Binding
	Poison    key.Binding
	Capture   key.Binding
	Resend    key.Binding
	Reuse     key.Binding
	Requeue   key.Binding
	Advance   key.Binding
	AdvanceBy key.Binding
	Faster    key.Binding
	Slower    key.Binding
	Reset     key.Binding
	Back      key.Binding
	Forward   key.Binding
	Save      key.Binding
	Other     key.Binding
	Compare   key.Binding
	Chaos     key.Binding
	NextPane  key.Binding
	Scenes    key.Binding
	Help      key.Binding
	Quit      key.Binding

	// chaosFirst puts X first in the one-line help: a lesson's step whose
	// task is a chaos run (elsewhere X is in the full help only).
	chaosFirst bool

	// A guided lesson's keys, enabled only with a lesson open.
	Hint   key.Binding
	Next   key.Binding
	Choose key.Binding
	Leave  key.Binding // esc: a lesson opened from / back to the free simulator
}

// DefaultKeyMap returns the simulator's keys, their help in w's language.
func DefaultKeyMap(w *catalog.Printer) KeyMap {
	return KeyMap{
		Play:      key.NewBinding(key.WithKeys("space"), key.WithHelp(w.Word("space"), w.T("run/pause"))),
		Step:      key.NewBinding(key.WithKeys("n"), key.WithHelp("n", w.T("step"))),
		Move:      key.NewBinding(key.WithKeys("m"), key.WithHelp("m", w.T("move an actor"))),
		Drain:     key.NewBinding(key.WithKeys("D"), key.WithHelp("D", w.T("drain"))),
		Crash:     key.NewBinding(key.WithKeys("c"), key.WithHelp("c", w.T("crash"))),
		Stall:     key.NewBinding(key.WithKeys("s"), key.WithHelp("s", w.T("stall"))),
		Duplicate: key.NewBinding(key.WithKeys("d"), key.WithHelp("d", w.T("duplicate delivery"))),
		Broker:    key.NewBinding(key.WithKeys("b"), key.WithHelp("b", w.T("broker down"))),
		RestartPG: key.NewBinding(key.WithKeys("R"), key.WithHelp("R", w.T("restart PostgreSQL"))),
		FailNext:  key.NewBinding(key.WithKeys("f"), key.WithHelp("f", w.T("fail next commit"))),
		Payment:   key.NewBinding(key.WithKeys("p"), key.WithHelp("p", w.T("payment"))),
		Poison:    key.NewBinding(key.WithKeys("P"), key.WithHelp("P", w.T("poison payment"))),
		Capture:   key.NewBinding(key.WithKeys("C"), key.WithHelp("C", w.T("capture payment"))),
		Resend:    key.NewBinding(key.WithKeys("i"), key.WithHelp("i", w.T("resend same key"))),
		Reuse:     key.NewBinding(key.WithKeys("I"), key.WithHelp("I", w.T("key, other body"))),
		Requeue:   key.NewBinding(key.WithKeys("Q"), key.WithHelp("Q", w.T("requeue dead"))),
		Advance:   key.NewBinding(key.WithKeys("t"), key.WithHelp("t", w.T("advance clock"))),
		AdvanceBy: key.NewBinding(key.WithKeys("T"), key.WithHelp("T", w.T("clock by…"))),
		Faster:    key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", w.T("faster"))),
		Slower:    key.NewBinding(key.WithKeys("-", "_"), key.WithHelp("-", w.T("slower"))),
		Reset:     key.NewBinding(key.WithKeys("r"), key.WithHelp("r", w.T("reset scene"))),
		Back:      key.NewBinding(key.WithKeys("["), key.WithHelp("[", w.T("back one"))),
		Forward:   key.NewBinding(key.WithKeys("]"), key.WithHelp("]", w.T("forward one"))),
		Save:      key.NewBinding(key.WithKeys("w"), key.WithHelp("w", w.T("save as scene"))),
		Other:     key.NewBinding(key.WithKeys("u"), key.WithHelp("u", w.T("other future"))),
		Compare:   key.NewBinding(key.WithKeys("v"), key.WithHelp("v", w.T("compare view"))),
		Chaos:     key.NewBinding(key.WithKeys("X"), key.WithHelp("X", w.T("chaos run"))),
		NextPane:  key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", w.T("next pane"))),
		Scenes:    key.NewBinding(key.WithKeys("/"), key.WithHelp("/", w.T("lessons and scenes"))),
		Help:      screen.HelpKey(w.T("more keys")),
		Quit:      screen.QuitKey(w),
		Hint:      key.NewBinding(key.WithKeys("h"), key.WithHelp("h", w.T("hint"))),
		Next:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", w.T("next step"))),
		Choose:    key.NewBinding(key.WithKeys("1", "2", "3", "4"), key.WithHelp("1-4", w.T("choose"))),
		Leave:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", w.T("free simulator"))),
	}
}

// ShortHelp is the one-line help: what a learner reaches for first.
func (k KeyMap) ShortHelp() []key.Binding {
	out := []key.Binding{k.Next, k.Hint, k.Choose, k.Play, k.Step, k.Payment, k.Crash, k.Advance, k.Scenes, k.Help, k.Quit}
	if k.chaosFirst {
		out = append([]key.Binding{k.Chaos}, out...)
	}
	return out
}

// FullHelp is every global key, in columns: drive, break, view.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Play, k.Step, k.Move, k.Drain, k.Faster, k.Slower, k.Advance, k.AdvanceBy, k.Reset},
		{k.Payment, k.Poison, k.Capture, k.Resend, k.Reuse, k.Requeue},
		{k.Crash, k.Stall, k.FailNext, k.Duplicate, k.Broker, k.RestartPG},
		{k.Back, k.Forward, k.Other, k.Save, k.Compare, k.Chaos, k.NextPane, k.Scenes, k.Help, k.Quit, k.Next, k.Hint, k.Choose, k.Leave},
	}
}

// all lists every binding, for enabling and disabling them as a group.
func (k *KeyMap) all() []*key.Binding {
	return []*key.Binding{&k.Play, &k.Step, &k.Move, &k.Drain, &k.Poison, &k.Capture, &k.Reuse, &k.Requeue, &k.AdvanceBy, &k.Crash, &k.Stall, &k.Duplicate, &k.Broker, &k.RestartPG, &k.FailNext,
		&k.Payment, &k.Resend, &k.Advance, &k.Faster, &k.Slower, &k.Reset, &k.Back, &k.Forward, &k.Other, &k.Save, &k.Compare, &k.Chaos, &k.NextPane, &k.Scenes, &k.Help, &k.Quit,
		&k.Hint, &k.Next, &k.Choose, &k.Leave}
}

// combinedHelp is the root's help: its global keys plus the focused pane's.
// With a width, the full help's columns are regrouped to fit it (fitColumns).
type combinedHelp struct {
	global KeyMap
	pane   interface {
		ShortHelp() []key.Binding
		FullHelp() [][]key.Binding
	}
	width int
}

func (c combinedHelp) ShortHelp() []key.Binding {
	out := c.global.ShortHelp()
	if c.pane != nil {
		out = append(out, c.pane.ShortHelp()...)
	}
	if c.width > 0 {
		out = fitShort(out, c.width, c.global.Help)
	}
	return out
}

// shortSep is what the help model puts between the one-line help's keys
// (help.Model's ShortSeparator).
const shortSep = " • "

// fitShort is the enabled keys of the one-line help that fit in width
// cells, in their order, with more (the key to the full help) kept last:
// the help model would cut the line and end it in "…".
func fitShort(keys []key.Binding, width int, more key.Binding) []key.Binding {
	size := func(b key.Binding) int {
		return ansi.StringWidth(b.Help().Key) + 1 + ansi.StringWidth(b.Help().Desc)
	}
	room := width
	if more.Enabled() {
		room -= size(more) + ansi.StringWidth(shortSep)
	}
	var out []key.Binding
	used := 0
	for _, b := range keys {
		if !b.Enabled() || b.Help().Key == more.Help().Key {
			continue
		}
		w := size(b)
		if len(out) > 0 {
			w += ansi.StringWidth(shortSep)
		}
		if used+w > room {
			continue // a shorter key further on may still fit
		}
		out = append(out, b)
		used += w
	}
	if more.Enabled() {
		out = append(out, more)
	}
	return out
}

func (c combinedHelp) FullHelp() [][]key.Binding {
	out := c.global.FullHelp()
	if c.pane != nil {
		out = append(out, c.pane.FullHelp()...)
	}
	if c.width > 0 {
		out = fitColumns(out, c.width)
	}
	return out
}

// helpGap is the space the help model puts between full-help columns
// (help.Model's FullSeparator).
const helpGap = 4

// fitColumns regroups the full help's columns so that, drawn side by side
// as the help model draws them, they fit in width cells: the help model
// cuts the columns that do not fit, keys and all. Columns that fit are
// kept as they are. Otherwise, in order and whole, neighbours are stacked
// into one column: the lowest stacking that fits, then the one with the
// most columns, then the narrowest. Only when no stacking fits are columns
// split, into the lowest height that fits. Disabled keys take no room.
func fitColumns(groups [][]key.Binding, width int) [][]key.Binding {
	var cols [][]key.Binding
	n := 0
	for _, g := range groups {
		var on []key.Binding
		for _, b := range g {
			if b.Enabled() {
				on = append(on, b)
			}
		}
		if len(on) > 0 {
			cols = append(cols, on)
			n += len(on)
		}
	}
	if columnsWidth(cols) <= width {
		return cols
	}
	// Each bit of cut says whether a column starts a new stack.
	var best [][]key.Binding
	bestH, bestW := 0, 0
	for cut := 0; cut < 1<<(len(cols)-1); cut++ {
		var out [][]key.Binding
		h := 0
		for i, c := range cols {
			if i == 0 || cut&(1<<(i-1)) != 0 {
				out = append(out, nil)
			}
			last := len(out) - 1
			out[last] = append(out[last], c...)
			h = max(h, len(out[last]))
		}
		w := columnsWidth(out)
		if w > width {
			continue
		}
		if best == nil || h < bestH || h == bestH && (len(out) > len(best) || len(out) == len(best) && w < bestW) {
			best, bestH, bestW = out, h, w
		}
	}
	if best != nil {
		return best
	}
	for h := 1; h < n; h++ {
		if split := flow(cols, h); columnsWidth(split) <= width {
			return split
		}
	}
	return [][]key.Binding{slices.Concat(cols...)}
}

// flow pours the keys, in order, into columns of h keys each.
func flow(cols [][]key.Binding, h int) [][]key.Binding {
	return slices.Collect(slices.Chunk(slices.Concat(cols...), h))
}

// columnsWidth is how wide the help model draws the columns: each column is
// its widest key, a space and its widest description, with helpGap between.
func columnsWidth(cols [][]key.Binding) int {
	w := 0
	for i, c := range cols {
		kw, dw := 0, 0
		for _, b := range c {
			kw = max(kw, ansi.StringWidth(b.Help().Key))
			dw = max(dw, ansi.StringWidth(b.Help().Desc))
		}
		w += kw + 1 + dw
		if i > 0 {
			w += helpGap
		}
	}
	return w
}
