package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/screen"
	"github.com/outboxlab/outboxlab/sim"
)

// Pane draws each pipeline as a chain, API → PostgreSQL →
// relays → broker → consumers, every actor with its state and the checkpoint
// it is parked at.
type Pane struct {
	st      *screen.Styles
	w, h    int
	kinds   []string
	actors  []sim.ActorView
	oracles map[string]sim.Oracle
	edges   []sim.Edge
}

// New is the pane before the simulator's first actors arrive.
func New(st *screen.Styles) Pane {
	return Pane{st: st, oracles: map[string]sim.Oracle{}}
}

// ActorsMsg carries the actors' states after an operation.
type ActorsMsg struct{ Actors []sim.ActorView }

// OraclesMsg carries every pipeline's oracle, freshly computed: the
// database's count (pending rows, payments) is the oracle's.
type OraclesMsg struct{ Oracles []sim.Oracle }

// EdgesMsg carries what is in flight between the actors.
type EdgesMsg struct{ Edges []sim.Edge }

// Update takes what the root read of the simulation; the pane has no keys.
func (p Pane) Update(msg tea.Msg) (Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case ActorsMsg:
		p.actors = msg.Actors
		p.kinds = p.kinds[:0:0]
		for _, a := range msg.Actors {
			if !slices.Contains(p.kinds, a.Pipeline) {
				p.kinds = append(p.kinds, a.Pipeline)
			}
		}
	case EdgesMsg:
		p.edges = msg.Edges
	case OraclesMsg:
		p.oracles = map[string]sim.Oracle{}
		for _, o := range msg.Oracles {
			p.oracles[o.Pipeline] = o
		}
	}
	return p, nil
}

// SetSize is the room the page gives the pane.
func (p *Pane) SetSize(w, h int) { p.w, p.h = w, h }

// Width is the pane's width: a page that lays the pane out reads from it
// how wide the body is.
func (p Pane) Width() int { return p.w }

// ShortHelp: the pipeline pane has no keys of its own.
func (p Pane) ShortHelp() []key.Binding { return nil }

// FullHelp: the pipeline pane has no keys of its own.
func (p Pane) FullHelp() [][]key.Binding { return nil }

// OneLineHeight is the pane's height with one line per actor: the least
// it needs to draw every actor.
func (p Pane) OneLineHeight() int {
	h := 1
	for _, k := range p.kinds {
		h += p.Stack(k)
	}
	return max(3, h)
}

// Height is the height the pane wants at width w: its title plus each
// pipeline two lines per stacked actor (one when tall does not fit in max).
func (p Pane) Height(maxH int) int {
	tall, wide := 1, 1
	for _, k := range p.kinds {
		n := p.Stack(k)
		tall += 2 * n
		wide += n
	}
	if len(p.kinds) == 0 {
		return 3
	}
	if tall <= maxH {
		return tall
	}
	return min(wide, maxH)
}

// View draws every pipeline, one under the other, in the pane's room.
func (p Pane) View() string {
	// Never drawn focused: the pane has no keys, so tab never lands on it.
	lines := []string{screen.PaneTitle(p.st, false, p.st.Words.T("Pipeline"), p.legend(), p.w)}
	if len(p.kinds) == 0 {
		lines = append(lines, p.st.Pane.Empty.Render("  "+p.st.Words.Word("waiting for the simulator…")))
		return screen.Block(strings.Join(lines, "\n"), p.w, p.h)
	}
	room := p.h - 1
	tall := 0
	for _, k := range p.kinds {
		tall += 2 * p.Stack(k)
	}
	for _, k := range p.kinds {
		n := p.Stack(k)
		rows := n
		if tall <= room {
			rows = 2 * n
		}
		lines = append(lines, strings.Split(p.ViewPipeline(k, p.w, rows, true), "\n")...)
	}
	return screen.Block(strings.Join(lines, "\n"), p.w, p.h)
}

func (p Pane) legend() string {
	return p.st.Words.T("○ idle  ● paused at  ‖ stalled  ◷ blocked  ✗ crashed/down  ⚑ armed")
}

// Stack is how many actors the tallest column of a pipeline holds.
func (p Pane) Stack(kind string) int {
	relays, consumers := 0, 0
	for _, a := range p.actors {
		if a.Pipeline != kind {
			continue
		}
		switch role(a.Name) {
		case roleRelay:
			relays++
		case roleConsumer:
			consumers++
		}
	}
	return max(1, relays, consumers)
}

type actorRole int

const (
	roleWriter actorRole = iota
	roleRelay
	roleBroker
	roleConsumer
)

func role(name string) actorRole {
	switch {
	case name == "api" || name == "api-2" || name == "naive":
		return roleWriter
	case strings.HasPrefix(name, "relay"):
		return roleRelay
	case name == "broker":
		return roleBroker
	}
	return roleConsumer
}

// ViewPipeline draws one pipeline in rows lines (two per actor when rows
// allows, else one) and w cells, with its kind as a label when label is set.
// Each actor is drawn in the longest of its forms that lets the row fit
// (actorCell's levels: every word, then fewer, then the legend's symbols),
// never cut: "✗ caído en pu…" or "broker ⚑ duplicate …" read as nothing.
func (p Pane) ViewPipeline(kind string, w, rows int, label bool) string {
	stack := p.Stack(kind)
	twoLines := rows >= 2*stack
	prefix := ""
	if label {
		prefix = p.st.Pipeline.Kind.Render(screen.Pad(kind, 6)) + " "
	}
	arrow := p.st.Pipeline.Arrow.Render(" ─▶ ")
	// Each column at its own level of detail: the widest column that can
	// still say less does, until the row fits.
	var at [lastLevel + 1][][]cell
	for level := range at {
		at[level] = p.columns(kind, level)
	}
	n := len(at[0])
	levels := make([]int, n)
	avail := w - ansi.StringWidth(prefix) - 4*(n-1)
	lay := func() ([][]string, []int) {
		colLines := make([][]string, n)
		widths := make([]int, n)
		for i := range n {
			for _, cell := range at[levels[i]][i] {
				if twoLines {
					colLines[i] = append(colLines[i], cell.name+cell.armed, cell.state)
				} else {
					// On one line the state comes before what is armed:
					// a broker down stays in view.
					colLines[i] = append(colLines[i], cell.name+" "+cell.state+cell.armed)
				}
			}
			for _, l := range colLines[i] {
				widths[i] = max(widths[i], ansi.StringWidth(l))
			}
		}
		return colLines, widths
	}
	colLines, widths := lay()
	// Level by level, the widest columns first: every column says "○"
	// before any loses its checkpoint.
	for target := 1; target <= lastLevel && sum(widths) > avail; target++ {
		for sum(widths) > avail {
			wi := -1
			for i := range n {
				if levels[i] < target && (wi < 0 || widths[i] > widths[wi]) {
					wi = i
				}
			}
			if wi < 0 {
				break
			}
			levels[wi] = target
			colLines, widths = lay()
		}
	}
	shrink(widths, avail)

	out := make([]string, rows)
	for r := 0; r < rows; r++ {
		var sb strings.Builder
		if r == 0 {
			sb.WriteString(prefix)
		} else {
			sb.WriteString(strings.Repeat(" ", ansi.StringWidth(prefix)))
		}
		for i := range colLines {
			if i > 0 {
				if r == 0 {
					sb.WriteString(arrow)
				} else {
					sb.WriteString("    ")
				}
			}
			l := ""
			if r < len(colLines[i]) {
				l = colLines[i][r]
			}
			sb.WriteString(screen.FitLine(l, widths[i]))
		}
		out[r] = screen.FitLine(sb.String(), w)
	}
	return strings.Join(out, "\n")
}

// cell is an actor as the pipeline draws it: its name, its state, and what
// is armed on it (with a leading space; "" for nothing).
type cell struct{ name, state, armed string }

// columns are the pipeline's columns of actors at a level of detail:
// writers, the database, the relays, the broker, the consumers.
func (p Pane) columns(kind string, level int) [][]cell {
	var writer, relays, broker, consumers []cell
	for _, a := range p.actors {
		if a.Pipeline != kind {
			continue
		}
		c := p.actorCell(a, level)
		switch role(a.Name) {
		case roleWriter:
			writer = append(writer, c)
		case roleRelay:
			relays = append(relays, c)
		case roleBroker:
			broker = append(broker, c)
		default:
			if e, ok := p.edge(kind, "broker", a.Name); ok && e.Queued+e.Unacked > 0 {
				q := p.st.Words.T(" ◂%d queued %d unacked", e.Queued, e.Unacked)
				if level > 0 {
					q = fmt.Sprintf(" ◂%d/%d", e.Queued, e.Unacked)
				}
				c.name += p.st.Pipeline.Count.Render(q)
			}
			consumers = append(consumers, c)
		}
	}
	o := p.oracles[kind]
	db := cell{name: p.st.Pipeline.Name.Render("postgres")}
	if kind == "outbox" {
		db.state = p.st.Pipeline.Count.Render(p.st.Words.T("%d pending", o.Pending))
		if e, ok := p.edge(kind, "postgres", "relay"); ok && e.Unacked > 0 {
			db.state += p.st.Pipeline.Count.Render(p.st.Words.T(" · %d leased", e.Unacked))
		}
	} else {
		db.state = p.st.Pipeline.Idle.Render(p.st.Words.T("%d payments", o.Payments))
	}
	if level == lastLevel {
		n := o.Payments
		if kind == "outbox" {
			n = o.Pending
		}
		db.state = p.st.Pipeline.Count.Render(p.st.Words.T("%d", n))
	}
	cols := [][]cell{writer, {db}}
	if len(relays) > 0 {
		cols = append(cols, relays)
	}
	return append(cols, broker, consumers)
}

// shrink narrows the widest columns until they fit in avail cells.
func shrink(widths []int, avail int) {
	total := 0
	for _, w := range widths {
		total += w
	}
	for total > avail {
		wi := 0
		for i, w := range widths {
			if w > widths[wi] {
				wi = i
			}
		}
		if widths[wi] <= 3 {
			return
		}
		widths[wi]--
		total--
	}
}

// lastLevel is actorCell's shortest form.
const lastLevel = 3

// actorCell is an actor at a level of detail: 0 every word ("✗ crashed at
// published", "⚑ crash@claimed"); 1 the state without its checkpoint and
// idle as its symbol ("✗ crashed", "○", "⚑ crash"); 2 the legend's symbols
// alone ("✗", "⚑"), but the checkpoint an actor is paused at, which is what
// its ● says; 3 that one too, and the database's count without its word.
func (p Pane) actorCell(a sim.ActorView, level int) cell {
	st := p.st.Pipeline
	w := p.st.Words
	c := cell{name: st.Name.Render(a.Name)}
	if len(a.Armed) > 0 {
		armed := "⚑ " + shortArmed(w, a.Armed)
		switch level {
		case 1:
			armed = "⚑ " + armedKinds(w, a.Armed)
		case 2, 3:
			armed = "⚑"
		}
		c.armed = " " + st.Armed.Render(armed)
	}
	cp := w.State(screen.ShortCheckpoint(string(a.At)))
	switch a.State {
	case sim.Paused:
		s := "● " + cp
		if level == lastLevel {
			s = "●"
		}
		c.state = st.Paused.Render(s)
	case sim.Stalled:
		s := w.T("‖ stalled %s", cp)
		switch level {
		case 1:
			s = w.T("‖ stalled")
		case 2, 3:
			s = "‖"
		}
		c.state = st.Stalled.Render(strings.TrimSpace(s))
	case sim.Blocked:
		s := w.T("◷ blocked on a lock")
		if level > 0 {
			s = "◷"
		}
		c.state = st.Blocked.Render(s)
	case sim.Crashed:
		s := w.T("✗ crashed")
		if cp != "" && level == 0 {
			s = w.T("✗ crashed at %s", cp)
		}
		if level >= 2 {
			s = "✗"
		}
		c.state = st.Crashed.Render(s)
	case sim.Down:
		// Down is never shortened past its word: the broker that is down
		// must be seen at any width.
		c.state = st.Down.Render(w.T("✗ DOWN"))
	default:
		s := w.T("○ idle")
		if a.Name == "broker" {
			s = w.T("○ up")
		}
		if level > 0 {
			s = "○"
		}
		c.state = st.Idle.Render(s)
	}
	return c
}

// armedKinds are the kinds of fault armed on an actor, without where.
func armedKinds(w *catalog.Printer, armed []string) string {
	var kinds []string
	for _, a := range slices.Sorted(slices.Values(armed)) {
		k, _, _ := strings.Cut(a, " at ")
		k = w.State("fault " + k)
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	return strings.Join(kinds, ",")
}

func shortArmed(w *catalog.Printer, armed []string) string {
	armed = slices.Sorted(slices.Values(armed))
	out := make([]string, len(armed))
	for i, a := range armed {
		kind, cp, ok := strings.Cut(a, " at ")
		if ok {
			out[i] = w.State("fault "+kind) + "@" + screen.ShortCheckpoint(cp)
		} else {
			out[i] = w.State("fault " + a)
		}
	}
	return strings.Join(out, ",")
}

// edge finds what is in flight from one actor to another in a pipeline.
func (p Pane) edge(kind, from, to string) (sim.Edge, bool) {
	for _, e := range p.edges {
		if e.Pipeline == kind && e.From == from && e.To == to {
			return e, true
		}
	}
	return sim.Edge{}, false
}

// sum is the total of widths.
func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
