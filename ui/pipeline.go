package ui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/sim"
)

// pipelinePane draws each pipeline as a chain, API → PostgreSQL →
// relays → broker → consumers, every actor with its state and the checkpoint
// it is parked at.
type pipelinePane struct {
	st      *Styles
	w, h    int
	focused bool
	kinds   []string
	actors  []sim.ActorView
	oracles map[string]sim.Oracle
	edges   []sim.Edge
}

func newPipelinePane(st *Styles) pipelinePane {
	return pipelinePane{st: st, oracles: map[string]sim.Oracle{}}
}

// actorsMsg carries the actors' states after an operation.
type actorsMsg struct{ actors []sim.ActorView }

// oraclesMsg carries every pipeline's oracle, freshly computed.
type oraclesMsg struct{ oracles []sim.Oracle }

// edgesMsg carries what is in flight between the actors.
type edgesMsg struct{ edges []sim.Edge }

func (p pipelinePane) Update(msg tea.Msg) (pipelinePane, tea.Cmd) {
	switch msg := msg.(type) {
	case actorsMsg:
		p.actors = msg.actors
		p.kinds = p.kinds[:0:0]
		for _, a := range msg.actors {
			if !contains(p.kinds, a.Pipeline) {
				p.kinds = append(p.kinds, a.Pipeline)
			}
		}
	case edgesMsg:
		p.edges = msg.edges
	case oraclesMsg:
		p.oracles = map[string]sim.Oracle{}
		for _, o := range msg.oracles {
			p.oracles[o.Pipeline] = o
		}
	}
	return p, nil
}

func (p *pipelinePane) SetSize(w, h int) { p.w, p.h = w, h }

// ShortHelp: the pipeline pane has no keys of its own.
func (p pipelinePane) ShortHelp() []key.Binding { return nil }

// FullHelp: the pipeline pane has no keys of its own.
func (p pipelinePane) FullHelp() [][]key.Binding { return nil }

// Height is the height the pane wants at width w: its title plus each
// pipeline two lines per stacked actor (one when tall does not fit in max).
func (p pipelinePane) Height(maxH int) int {
	tall, wide := 1, 1
	for _, k := range p.kinds {
		n := p.stack(k)
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

func (p pipelinePane) View() string {
	lines := []string{paneTitle(p.st, p.focused, p.st.Words.T("Pipeline"), p.legend(), p.w)}
	if len(p.kinds) == 0 {
		lines = append(lines, p.st.Pane.Empty.Render("  waiting for the simulator…"))
		return block(strings.Join(lines, "\n"), p.w, p.h)
	}
	room := p.h - 1
	tall := 0
	for _, k := range p.kinds {
		tall += 2 * p.stack(k)
	}
	for _, k := range p.kinds {
		n := p.stack(k)
		rows := n
		if tall <= room {
			rows = 2 * n
		}
		lines = append(lines, strings.Split(p.viewPipeline(k, p.w, rows, true), "\n")...)
	}
	return block(strings.Join(lines, "\n"), p.w, p.h)
}

func (p pipelinePane) legend() string {
	return p.st.Words.T("○ idle  ● paused at  ‖ stalled  ⧗ blocked  ✗ crashed/down  ⚑ armed")
}

// stack is how many actors the tallest column of a pipeline holds.
func (p pipelinePane) stack(kind string) int {
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

// viewPipeline draws one pipeline in rows lines (two per actor when rows
// allows, else one) and w cells, with its kind as a label when label is set.
func (p pipelinePane) viewPipeline(kind string, w, rows int, label bool) string {
	stack := p.stack(kind)
	twoLines := rows >= 2*stack
	var writer, relays, broker, consumers [][2]string
	for _, a := range p.actors {
		if a.Pipeline != kind {
			continue
		}
		cell := p.actorCell(a)
		switch role(a.Name) {
		case roleWriter:
			writer = append(writer, cell)
		case roleRelay:
			relays = append(relays, cell)
		case roleBroker:
			broker = append(broker, cell)
		default:
			if e, ok := p.edge(kind, "broker", a.Name); ok && e.Queued+e.Unacked > 0 {
				cell[0] += p.st.Pipeline.Count.Render(p.st.Words.T(" ◂%d queued %d unacked", e.Queued, e.Unacked))
			}
			consumers = append(consumers, cell)
		}
	}
	o := p.oracles[kind]
	db := [2]string{p.st.Pipeline.Name.Render("postgres"), ""}
	if kind == "outbox" {
		db[1] = p.st.Pipeline.Count.Render(p.st.Words.T("%d pending", o.Pending))
		if e, ok := p.edge(kind, "postgres", "relay"); ok && e.Unacked > 0 {
			db[1] += p.st.Pipeline.Count.Render(p.st.Words.T(" · %d leased", e.Unacked))
		}
	} else {
		db[1] = p.st.Pipeline.Idle.Render(p.st.Words.T("%d payments", o.Payments))
	}
	cols := [][][2]string{writer, {db}}
	if len(relays) > 0 {
		cols = append(cols, relays)
	}
	cols = append(cols, broker, consumers)

	prefix := ""
	if label {
		prefix = p.st.Pipeline.Kind.Render(pad(kind, 6)) + " "
	}
	arrow := p.st.Pipeline.Arrow.Render(" ─▶ ")
	avail := w - ansi.StringWidth(prefix) - 4*(len(cols)-1)
	// Each column becomes its lines. On one line each, an idle actor's
	// state is its symbol alone when the words would not fit (the legend
	// says ○): cut, "broker ○ ar…" lost the names too.
	idle := map[string]bool{p.st.Pipeline.Idle.Render(p.st.Words.T("○ idle")): true, p.st.Pipeline.Idle.Render(p.st.Words.T("○ up")): true}
	lay := func(short bool) ([][]string, []int) {
		colLines := make([][]string, len(cols))
		widths := make([]int, len(cols))
		for i, c := range cols {
			for _, cell := range c {
				state := cell[1]
				if short && idle[state] {
					state = p.st.Pipeline.Idle.Render("○")
				}
				if twoLines {
					colLines[i] = append(colLines[i], cell[0], state)
				} else {
					colLines[i] = append(colLines[i], cell[0]+" "+state)
				}
			}
			for _, l := range colLines[i] {
				widths[i] = max(widths[i], ansi.StringWidth(l))
			}
		}
		return colLines, widths
	}
	colLines, widths := lay(false)
	if !twoLines && sum(widths) > avail {
		colLines, widths = lay(true)
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
		for i := range cols {
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
			sb.WriteString(fitLine(l, widths[i]))
		}
		out[r] = fitLine(sb.String(), w)
	}
	return strings.Join(out, "\n")
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

// actorCell is an actor's name line and state line.
func (p pipelinePane) actorCell(a sim.ActorView) [2]string {
	st := p.st.Pipeline
	name := st.Name.Render(a.Name)
	if len(a.Armed) > 0 {
		name += " " + st.Armed.Render("⚑ "+shortArmed(a.Armed))
	}
	cp := shortCheckpoint(string(a.At))
	var state string
	switch a.State {
	case sim.Paused:
		state = st.Paused.Render("● " + cp)
	case sim.Stalled:
		state = st.Stalled.Render(p.st.Words.T("‖ stalled %s", cp))
	case sim.Blocked:
		state = st.Blocked.Render(p.st.Words.T("⧗ blocked on a lock"))
	case sim.Crashed:
		s := p.st.Words.T("✗ crashed")
		if cp != "" {
			s = p.st.Words.T("✗ crashed at %s", cp)
		}
		state = st.Crashed.Render(s)
	case sim.Down:
		state = st.Down.Render(p.st.Words.T("✗ DOWN"))
	default:
		if a.Name == "broker" {
			state = st.Idle.Render(p.st.Words.T("○ up"))
		} else {
			state = st.Idle.Render(p.st.Words.T("○ idle"))
		}
	}
	return [2]string{name, state}
}

// shortCheckpoint drops the actor-kind prefix: beside relay-1, "published"
// says what "relay.published" does.
func shortCheckpoint(cp string) string {
	if i := strings.IndexByte(cp, '.'); i >= 0 {
		return cp[i+1:]
	}
	return cp
}

func shortArmed(armed []string) string {
	armed = slices.Sorted(slices.Values(armed))
	out := make([]string, len(armed))
	for i, a := range armed {
		kind, cp, ok := strings.Cut(a, " at ")
		if ok {
			out[i] = kind + "@" + shortCheckpoint(cp)
		} else {
			out[i] = a
		}
	}
	return strings.Join(out, ",")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// edge finds what is in flight from one actor to another in a pipeline.
func (p pipelinePane) edge(kind, from, to string) (sim.Edge, bool) {
	for _, e := range p.edges {
		if e.Pipeline == kind && e.From == from && e.To == to {
			return e, true
		}
	}
	return sim.Edge{}, false
}
