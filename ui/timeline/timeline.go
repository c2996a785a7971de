package timeline

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/screen"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/sim"
)

// maxEntries bounds the timeline the pane keeps; older entries drop off.
const maxEntries = 5000

type keyMap struct {
	Up, Down, Newest, SQL, Rewind, Story key.Binding
}

func defaultKeyMap(w *catalog.Printer) keyMap {
	return keyMap{
		Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", w.T("older entry"))),
		Down:   key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", w.T("newer entry"))),
		Newest: key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", w.T("follow newest"))),
		SQL:    key.NewBinding(key.WithKeys("enter", "x"), key.WithHelp("enter", w.T("show SQL"))),
		Rewind: key.NewBinding(key.WithKeys("g"), key.WithHelp("g", w.T("rewind to here")), key.WithDisabled()),
		Story:  key.NewBinding(key.WithKeys("o"), key.WithHelp("o", w.T("its story"))),
	}
}

func (k keyMap) ShortHelp() []key.Binding { return []key.Binding{k.Up, k.Down, k.SQL, k.Story} }
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Newest, k.SQL, k.Story, k.Rewind}}
}

// RewindToMsg asks the root to take the session back to the point where
// the timeline's entry (its index from the first) happened: scrubbing.
type RewindToMsg struct{ Entry int }

// StoryOfMsg asks the root for the story of the message a timeline entry
// (its index from the first) is about.
type StoryOfMsg struct{ Entry int }

// EntriesMsg carries the entries recorded since the pane's last one (Next
// says from where a read starts).
type EntriesMsg struct {
	From    int
	Entries []sim.Entry
	Epoch   int  // the simulation's resets, as of this read
	Reset   bool // a rewind came since the pane's last read: Entries is all of it
}

// ForkMsg marks where the session forked: the entries before index At are
// the original's, the ones after it a new future (-1: no fork).
type ForkMsg struct{ At int }

// OtherFutureMsg says the session swapped futures at its fork (u): the
// marker stays where it is and names the other one.
type OtherFutureMsg struct{}

// Pane lists the newest timeline entries: who, at which checkpoint,
// which named statement ran, and why it matters. Enter shows the selected
// entry's SQL and full explanation.
type Pane struct {
	st      *screen.Styles
	keys    keyMap
	w, h    int
	focused bool
	compare bool // prefix entries with their pipeline
	// picker: / opens the lessons and scenes here (the free simulator),
	// and the empty timeline says so.
	picker bool

	entries []sim.Entry
	total   int // entries received, including dropped ones
	epoch   int // the simulation's resets the entries are from
	forkAt  int // entries before this index are from before the fork; -1 none
	// original: the entries after the fork are the original future, brought
	// back by u, not the new one.
	original bool
	sel      int // selected index into entries; -1 follows the newest
	showSQL  bool
}

// New is an empty timeline drawn with st.
func New(st *screen.Styles) Pane {
	return Pane{st: st, keys: defaultKeyMap(st.Words), sel: -1, forkAt: -1}
}

// SetSize gives the pane its room.
func (t *Pane) SetSize(w, h int) { t.w, t.h = w, h }

// SetFocused marks the pane as the one that takes the keys.
func (t *Pane) SetFocused(focused bool) { t.focused = focused }

// SetCompare prefixes each entry with its pipeline (compare mode).
func (t *Pane) SetCompare(compare bool) { t.compare = compare }

// SetPicker says / opens the lessons and scenes now: the empty timeline
// leads there.
func (t *Pane) SetPicker(picker bool) { t.picker = picker }

// SetRewind enables g, the rewind to the selected entry (the free
// simulator's alone: a lesson's checks read the timeline from where its
// step began).
func (t *Pane) SetRewind(enabled bool) { t.keys.Rewind.SetEnabled(enabled) }

// Next is where the next read of the simulation's timeline starts: the
// resets the entries are from, and how many came so far.
func (t Pane) Next() (epoch, from int) { return t.epoch, t.total }

// Total is how many entries the pane received, the dropped ones included.
func (t Pane) Total() int { return t.total }

// Entries are the entries the pane keeps, oldest first.
func (t Pane) Entries() []sim.Entry { return t.entries }

// Selected is the entry selected (the newest while none is), by its index
// from the first; ok is false on an empty timeline.
func (t Pane) Selected() (index int, e sim.Entry, ok bool) {
	if len(t.entries) == 0 {
		return 0, sim.Entry{}, false
	}
	i := t.selected()
	return t.total - len(t.entries) + i, t.entries[i], true
}

// ShortHelp is the pane's keys in the help line.
func (t Pane) ShortHelp() []key.Binding { return t.keys.ShortHelp() }

// FullHelp is the pane's keys in the full help.
func (t Pane) FullHelp() [][]key.Binding { return t.keys.FullHelp() }

// Update takes the simulation's entries, the fork, and the keys and the
// mouse wheel while the pane has the focus.
func (t Pane) Update(msg tea.Msg) (Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case ForkMsg:
		t.forkAt, t.original = msg.At, false
	case OtherFutureMsg:
		t.original = !t.original
	case EntriesMsg:
		if msg.Reset {
			// A rewind: the timeline is what the replay recorded.
			t.entries, t.total, t.epoch, t.sel = nil, 0, msg.Epoch, -1
			msg.From = 0
		}
		if msg.From != t.total || msg.Epoch != t.epoch {
			return t, nil // a stale read: the next one covers it
		}
		t.entries = append(t.entries, msg.Entries...)
		t.total += len(msg.Entries)
		if drop := len(t.entries) - maxEntries; drop > 0 {
			t.entries = append(t.entries[:0:0], t.entries[drop:]...)
			if t.sel >= 0 {
				t.sel = max(0, t.sel-drop)
			}
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			t.move(-3)
		case tea.MouseWheelDown:
			t.move(3)
		}
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, t.keys.Up):
			t.move(-1)
		case key.Matches(msg, t.keys.Down):
			t.move(1)
		case key.Matches(msg, t.keys.Newest):
			t.sel = -1
		case key.Matches(msg, t.keys.SQL):
			t.showSQL = !t.showSQL
		case key.Matches(msg, t.keys.Story) && len(t.entries) > 0:
			entry := t.total - len(t.entries) + t.selected()
			return t, func() tea.Msg { return StoryOfMsg{entry} }
		case key.Matches(msg, t.keys.Rewind) && len(t.entries) > 0:
			entry := t.total - len(t.entries) + t.selected()
			return t, func() tea.Msg { return RewindToMsg{entry} }
		}
	}
	return t, nil
}

func (t *Pane) move(d int) {
	if len(t.entries) == 0 {
		return
	}
	cur := t.sel
	if cur < 0 {
		cur = len(t.entries) - 1
	}
	cur += d
	switch {
	case cur >= len(t.entries)-1:
		t.sel = -1
	case cur < 0:
		t.sel = 0
	default:
		t.sel = cur
	}
}

func (t Pane) selected() int {
	if t.sel < 0 {
		return len(t.entries) - 1
	}
	return t.sel
}

// View draws the pane: its title, the entries that fit, the SQL below.
func (t Pane) View() string {
	w := t.st.Words
	detail := w.T("%d entries", t.total)
	if t.sel >= 0 {
		detail += " · " + w.T("scrolled (G: newest)")
	}
	lines := []string{screen.PaneTitle(t.st, t.focused, w.T("Timeline"), detail, t.w)}
	body := t.h - 1
	var sqlLines []string
	if t.showSQL && len(t.entries) > 0 {
		sqlLines = t.detail(t.entries[t.selected()], max(3, body/2))
		body -= len(sqlLines)
	}
	if len(t.entries) == 0 {
		empty := w.T("nothing has happened yet: p sends a payment, n steps, space runs")
		if t.picker {
			// The free simulator's first screen: the way into the course
			// first, wrapped, never cut ("/ opens the…").
			empty = w.T("new here? / opens the course at lesson 1. Or: p sends a payment, n steps, space runs")
		}
		for _, l := range screen.WrapWhole(empty, t.w-2, 0) {
			lines = append(lines, t.st.Pane.Empty.Render("  "+l))
		}
	}
	// Scrolled, the selected entry is the last one shown (entries wrap, so
	// counting entries cannot tell what fits above it); else the newest.
	sel := t.selected()
	end := len(t.entries)
	if t.sel >= 0 {
		end = sel + 1
	}
	// Entries fill the body from the newest one shown upwards; a long
	// explanation wraps (up to entryMaxLines), so its consequence, usually
	// its last clause, stays on screen.
	var rows []string
	for i := end - 1; i >= 0 && len(rows) < body; i-- {
		el := t.entryLines(t.entries[i], entryMaxLines)
		if i == sel && (t.sel >= 0 || t.showSQL) {
			for j, l := range el {
				el[j] = t.st.Timeline.Selected.Render(screen.FitLine(ansi.Strip(l), t.w))
			}
		}
		rows = append(el, rows...)
		if t.total-len(t.entries)+i == t.forkAt && t.forkAt > 0 {
			rows = append([]string{t.forkLine()}, rows...)
		}
	}
	if len(rows) > body {
		rows = rows[len(rows)-body:]
	}
	// Room left below a selection near the top: the entries after it.
	for i := end; i < len(t.entries) && len(rows) < body; i++ {
		rows = append(rows, t.entryLines(t.entries[i], entryMaxLines)...)
	}
	rows = rows[:min(len(rows), body)]
	lines = append(lines, rows...)
	lines = screen.FitLines(lines, t.w, t.h-len(sqlLines))
	lines = append(lines, sqlLines...)
	return screen.Block(strings.Join(lines, "\n"), t.w, t.h)
}

// forkLine is drawn between the last entry from before a fork and the
// first of the new future.
func (t Pane) forkLine() string {
	label := " " + t.st.Words.T("▲ before the fork · ▼ the new future") + " "
	if t.original {
		label = " " + t.st.Words.T("▲ before the fork · ▼ the original future") + " "
	}
	n := max(0, t.w-lipgloss.Width(label)-4)
	return t.st.Timeline.Fork.Render("──" + label + strings.Repeat("─", n))
}

// entryLine is one entry on one line.
func (t Pane) entryLine(e sim.Entry) string {
	ts := t.st.Timeline
	who := e.Actor
	if who == sim.ActorClient || who == sim.ActorClock || who == sim.ActorOperator {
		who = t.st.Words.Word(who)
	}
	if t.compare && e.Pipeline != "" {
		who = e.Pipeline[:1] + ":" + who
	}
	w := t.st.Words
	what := w.State(screen.ShortCheckpoint(e.Checkpoint))
	whatStyle := ts.Checkpoint
	switch e.Kind {
	case sim.KindCheckpoint:
	case sim.KindCrash:
		what, whatStyle = w.State("CRASH"), ts.Crash
		if e.Checkpoint != "" {
			what += "@" + screen.ShortCheckpoint(e.Checkpoint)
		}
	case sim.KindFault, sim.KindError, sim.KindBlocked:
		what, whatStyle = w.State(string(e.Kind)), ts.Fault
	default:
		if what == "" {
			what, whatStyle = w.State(string(e.Kind)), ts.Answer
		}
	}
	var sb strings.Builder
	if t.w >= 100 {
		sb.WriteString(ts.Time.Render(e.At.Format("15:04:05.000")))
		sb.WriteByte(' ')
	}
	sb.WriteString(ts.Actor.Render(screen.Pad(who, 13)))
	sb.WriteByte(' ')
	sb.WriteString(whatStyle.Render(screen.Pad(what, 15)))
	sb.WriteByte(' ')
	if e.Statement != "" {
		sb.WriteString(ts.Statement.Render("[" + e.Statement + "]"))
		sb.WriteByte(' ')
	}
	sb.WriteString(ts.Explain.Render(t.Explain(e)))
	return sb.String()
}

// Explain is the entry's sentence in the screen's language, where the
// timeline kept it as a catalog sentence.
func (t Pane) Explain(e sim.Entry) string {
	say := e.Explain
	if e.Say != nil {
		say = e.Say.In(t.st.Words)
	}
	return shortIDs(strings.TrimSpace(say))
}

// wholeID is a uuid written out whole, its last eight digits captured.
var wholeID = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}([0-9a-f]{8})`)

// shortIDs writes every whole uuid in a sentence as the timeline writes
// ids, by their last eight digits (…deb1bbf2): an error the engine quotes
// names its message whole, a word wider than a narrow pane.
func shortIDs(s string) string { return wholeID.ReplaceAllString(s, "…$1") }

// entryMaxLines is how many lines one entry may take.
const entryMaxLines = 8

// entryLines is one entry wrapped to the pane: its explanation continues
// under itself, in at most n lines (the last cut with … if it still does
// not fit).
func (t Pane) entryLines(e sim.Entry, n int) []string {
	one := t.entryLine(e)
	if ansi.StringWidth(one) <= t.w {
		return []string{one}
	}
	ts := t.st.Timeline
	explain := t.Explain(e)
	head := strings.TrimSuffix(one, ts.Explain.Render(explain)) // time, actor, what, [statement]
	// The sentence continues under itself, right of the [statement] tag:
	// continued under the tag, the next entry's tag read as more of it.
	indent := ansi.StringWidth(head)
	first := t.w - ansi.StringWidth(head)
	rest := t.w - indent
	headAlone := false
	if first < 12 || rest < 30 {
		// A narrow pane (a lesson's column): the sentence goes under the
		// actor instead, four cells in, from the line after the head when
		// not even a word fits beside it; right of the tag, a column of
		// two or three words a line would end a long sentence (a dead
		// letter's error) before its eight lines did.
		indent, rest = 4, t.w-4
		headAlone = first < 12
	}
	words := strings.Fields(explain)
	var out []string
	line, width := "", first
	if headAlone {
		out, width = append(out, ""), rest
	}
	for _, w := range words {
		switch {
		case line == "":
			line = w
		case ansi.StringWidth(line)+1+ansi.StringWidth(w) <= width:
			line += " " + w
		default:
			out = append(out, line)
			line, width = w, rest
		}
	}
	out = append(out, line)
	if len(out) > n {
		out = append(out[:n-1], strings.Join(out[n-1:], " "))
	}
	lines := make([]string, len(out))
	for i, l := range out {
		if i == 0 {
			lines[i] = head + screen.NonEmpty(ts.Explain, l)
			continue
		}
		lines[i] = strings.Repeat(" ", indent) + ts.Explain.Render(l)
	}
	return lines
}

// detail is the selected entry's explanation, ids and SQL, in at most n lines.
func (t Pane) detail(e sim.Entry, n int) []string {
	ts := t.st.Timeline
	w := max(10, t.w-4)
	head := fmt.Sprintf("#%d %s", e.Seq, e.At.Format("15:04:05.000000"))
	if e.Pipeline != "" {
		head += " " + e.Pipeline
	}
	head += " " + e.Actor
	if e.Checkpoint != "" {
		head += " at " + e.Checkpoint
	}
	if e.Rows != 0 || e.Statement != "" {
		head += fmt.Sprintf(" · %d rows", e.Rows)
	}
	if len(e.MessageIDs) > 0 {
		head += " · messages " + strings.Join(e.MessageIDs, ",")
	}
	if e.Delivery > 0 {
		head += fmt.Sprintf(" · delivery %d", e.Delivery)
	}
	lines := []string{t.st.Pane.Gutter.Render(strings.Repeat("╌", t.w)), "  " + ts.Actor.Render(head)}
	for _, l := range strings.Split(lipgloss.Wrap(t.Explain(e), w, " "), "\n") {
		lines = append(lines, "  "+ts.Explain.Render(l))
	}
	if e.SQL != "" {
		lines = append(lines, "  "+ts.Statement.Render(e.Statement+":"))
		for _, l := range strings.Split(strings.TrimSpace(e.SQL), "\n") {
			lines = append(lines, "    "+ts.SQL.Render(strings.TrimRight(l, " \t")))
		}
	} else {
		lines = append(lines, "  "+t.st.App.Muted.Render(t.st.Words.Word("(no SQL ran at this entry)")))
	}
	if len(lines) > n {
		lines = lines[:n]
	}
	return lines
}
