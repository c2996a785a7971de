package guarantees

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/screen"
	"github.com/outboxlab/outboxlab/sim"
)

// Pane shows the oracle of each pipeline: the three violations
// first (lost events, phantom effects, duplicate effects), red with an
// example id the moment one happens, then what the pipeline did.
type Pane struct {
	st      *screen.Styles
	w, h    int
	oracles []sim.Oracle
	stale   string // why PostgreSQL stopped, while the figures cannot be read
}

// OraclesMsg carries every pipeline's oracle, freshly computed.
type OraclesMsg struct{ Oracles []sim.Oracle }

// StaleMsg says the oracle cannot be read (Why: PostgreSQL stopped, in the
// learner's words): the pane stops showing figures nobody checked until a
// fresh OraclesMsg arrives.
type StaleMsg struct{ Why string }

// New is the pane before the first oracle is read.
func New(st *screen.Styles) Pane { return Pane{st: st} }

// Update takes the oracles the root read, or word that they cannot be read;
// the pane has no keys.
func (g Pane) Update(msg tea.Msg) (Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case OraclesMsg:
		g.oracles, g.stale = msg.Oracles, ""
	case StaleMsg:
		g.oracles, g.stale = nil, msg.Why
	}
	return g, nil
}

// SetSize is the room the page gives the pane.
func (g *Pane) SetSize(w, h int) { g.w, g.h = w, h }

// ShortHelp: the guarantees pane has no keys of its own.
func (g Pane) ShortHelp() []key.Binding { return nil }

// FullHelp: the guarantees pane has no keys of its own.
func (g Pane) FullHelp() [][]key.Binding { return nil }

// Oracles are the oracles on screen (none while they cannot be read).
func (g Pane) Oracles() []sim.Oracle { return g.oracles }

// Height is what the pane needs at width w.
func (g Pane) Height(w int) int {
	return 1 + len(strings.Split(g.body(w), "\n"))
}

// View draws every pipeline's figures, side by side where they fit.
func (g Pane) View() string {
	// Never drawn focused: the pane has no keys, so tab never lands on it.
	title := screen.PaneTitle(g.st, false, g.st.Words.T("Guarantees"), g.st.Words.T("the oracle, from the database"), g.w)
	return screen.Block(title+"\n"+g.body(g.w), g.w, g.h)
}

// staleLines replace the figures while the database cannot be read.
func (g Pane) staleLines() []string {
	fs := g.st.Figures
	return []string{
		fs.Bad.Render(g.st.Words.T("  ✗ stale: PostgreSQL stopped")),
		fs.Label.Render("  " + screen.OneLine(g.stale)),
		g.st.Pane.Empty.Render(g.st.Words.T("  no figure can be read until it runs: R starts it")),
	}
}

func (g Pane) body(w int) string {
	if g.stale != "" {
		return strings.Join(g.staleLines(), "\n")
	}
	if len(g.oracles) == 0 {
		return g.st.Pane.Empty.Render("  " + g.st.Words.T("waiting for the oracle…"))
	}
	// Side by side when each pipeline gets 38 cells, else stacked.
	if len(g.oracles) > 1 && w/len(g.oracles) >= 38 {
		cw := (w - 1) / len(g.oracles)
		blocks := make([]string, len(g.oracles))
		h := 0
		for _, o := range g.oracles {
			h = max(h, len(g.pipelineLines(o, cw)))
		}
		for i, o := range g.oracles {
			blocks[i] = strings.Join(screen.FitLines(g.pipelineLines(o, cw), cw, h), "\n")
		}
		return screen.JoinColumns(g.st.Pane.Gutter.Render("│"), blocks...)
	}
	var lines []string
	for _, o := range g.oracles {
		lines = append(lines, g.pipelineLines(o, w)...)
	}
	return strings.Join(lines, "\n")
}

// ViewPipeline draws one pipeline's figures in a w×h block (compare view).
func (g Pane) ViewPipeline(kind string, w, h int) string {
	for _, o := range g.oracles {
		if o.Pipeline == kind {
			return screen.Block(strings.Join(g.pipelineLines(o, w), "\n"), w, h)
		}
	}
	return screen.Block(g.st.Pane.Empty.Render("  "+g.st.Words.T("waiting for the oracle…")), w, h)
}

type figure struct {
	label string
	value string
	bad   bool
}

// PipelineHeight is how many lines ViewPipeline needs for the pipeline kind
// at width w (0 before its oracle is read).
func (g Pane) PipelineHeight(kind string, w int) int {
	n := 0
	for _, o := range g.oracles {
		if o.Pipeline == kind {
			n = max(n, len(g.pipelineLines(o, w)))
		}
	}
	return n
}

// pipelineLines is one oracle: heading, violations, then a grid of figures.
func (g Pane) pipelineLines(o sim.Oracle, w int) []string {
	fs := g.st.Figures
	lines := []string{" " + fs.Heading.Render(o.Pipeline)}
	w8 := g.st.Words
	// The three labels line up, one space past the longest in this
	// language ("efectos duplicados" is 18 wide).
	col := 18
	labels := []string{scenes.FigureLabel("lost_events"), scenes.FigureLabel("phantom_effects"), scenes.FigureLabel("duplicate_effects")}
	if o.SuppressedEffects > 0 {
		labels = append(labels, scenes.FigureLabel("suppressed_effects"))
	}
	if o.External != "" {
		labels = append(labels, scenes.FigureLabel("lost_charges"), scenes.FigureLabel("double_charges"))
	}
	for _, l := range labels {
		col = max(col, ansi.StringWidth(w8.Word(l))+1)
	}
	violation := func(label string, n int64, example, what string) string {
		s := " " + fs.Label.Render(screen.Pad(w8.Word(label), col))
		if n == 0 {
			return s + fs.Good.Render("0 ✓")
		}
		s += fs.Bad.Render(fmt.Sprintf("%d ✗", n))
		if example != "" {
			// The example whole, or its id alone, or none: never cut.
			ex := w8.Word(what) + " " + shortID(example)
			if ansi.StringWidth(s)+1+ansi.StringWidth(ex) > w {
				ex = shortID(example)
			}
			if ansi.StringWidth(s)+1+ansi.StringWidth(ex) <= w {
				s += " " + fs.Example.Render(ex)
			}
		}
		return s
	}
	lines = append(lines,
		violation(scenes.FigureLabel("lost_events"), o.LostEvents, o.LostExample, "payment"),
		violation(scenes.FigureLabel("phantom_effects"), o.PhantomEffects, o.PhantomExample, "message"),
		violation(scenes.FigureLabel("duplicate_effects"), o.DuplicateEffects, o.DuplicateExample, "message"),
	)
	if o.SuppressedEffects > 0 {
		// Only where it happens (S22's inbox keyed on the trace id): an
		// effect a consumer settled without applying is a broken guarantee.
		lines = append(lines, violation(scenes.FigureLabel("suppressed_effects"), o.SuppressedEffects, o.SuppressedExample, "message"))
	}
	if o.External != "" {
		// S19: a charge the card provider's database lacks, or holds twice,
		// is a broken guarantee the inbox cannot see.
		lines = append(lines,
			violation(scenes.FigureLabel("lost_charges"), o.LostCharges, o.LostChargeExample, "payment"),
			violation(scenes.FigureLabel("double_charges"), o.DoubleCharges, o.DoubleChargeExample, "payment"))
	}
	figs := []figure{
		{scenes.FigureLabel("payments"), num(o.Payments), false},
		{scenes.FigureLabel("effects"), num(o.Effects), false},
	}
	if o.External != "" {
		figs = append(figs, figure{scenes.FigureLabel("charges"), num(o.Charges), false})
	}
	if o.Pipeline == "outbox" {
		figs = append(figs,
			figure{scenes.FigureLabel("outbox_rows"), num(o.OutboxRows), false},
			figure{scenes.FigureLabel("published"), fmt.Sprintf("%d/%d", o.Published, o.OutboxRows), false},
		)
	}
	figs = append(figs,
		figure{scenes.FigureLabel("publishes"), num(o.Publishes), false},
		figure{scenes.FigureLabel("deliveries"), num(o.Deliveries), false},
		figure{scenes.FigureLabel("duplicates_delivered"), num(o.DuplicatesDelivered), false},
		figure{scenes.FigureLabel("duplicates_ignored"), num(o.DuplicatesIgnored), false},
	)
	if o.Pipeline == "outbox" {
		figs = append(figs,
			figure{scenes.FigureLabel("dead_lettered"), num(o.DeadLettered), false},
			figure{scenes.FigureLabel("double_leases"), num(o.DoubleLeases), o.DoubleLeases > 0},
		)
	}
	if o.Slots > 0 {
		// relay: cdc: the WAL its slot holds, growing while the relay is down.
		figs = append(figs, figure{scenes.FigureLabel("slot_retained_bytes"), byteSize(g.st.Words, o.SlotRetainedBytes), false})
	}
	figs = append(figs, figure{scenes.FigureLabel("crashes"), num(o.Crashes), false})
	if o.Conflicts > 0 || o.Replays > 0 {
		figs = append(figs, figure{scenes.FigureLabel("conflicts"), num(o.Conflicts), false}, figure{scenes.FigureLabel("replays"), num(o.Replays), false})
	}
	if o.VersionGaps > 0 || o.OutOfOrder > 0 || o.Parked > 0 || o.HeldBack > 0 {
		// Order per aggregate (S20): the gaps a consumer saw, the effects
		// applied out of version order (a broken order), the events parked
		// ahead of their version, and the claims an ordering held back.
		figs = append(figs, figure{scenes.FigureLabel("version_gaps"), num(o.VersionGaps), false},
			figure{scenes.FigureLabel("out_of_order"), num(o.OutOfOrder), o.OutOfOrder > 0},
			figure{scenes.FigureLabel("parked"), num(o.Parked), false},
			figure{scenes.FigureLabel("held_back"), num(o.HeldBack), false})
	}
	return append(lines, g.grid(figs, w)...)
}

// byteSize is a size in bytes as a reader takes it in at a glance.
func byteSize(w *catalog.Printer, n int64) string {
	switch {
	case n < 1024:
		return w.T("%d B", n)
	case n < 1024*1024:
		return w.T("%.1f kB", float64(n)/1024)
	}
	return w.T("%.1f MB", float64(n)/(1024*1024))
}

// grid lays figures out in as many columns of 21 cells as fit.
func (g Pane) grid(figs []figure, w int) []string {
	const cell = 21
	cols := max(1, (w-1)/cell)
	var lines []string
	for i := 0; i < len(figs); i += cols {
		var sb strings.Builder
		sb.WriteByte(' ')
		for j := i; j < min(i+cols, len(figs)); j++ {
			f := figs[j]
			v := g.st.Figures.Value.Render(f.value)
			if f.bad {
				v = g.st.Figures.Bad.Render(f.value)
			}
			label := g.st.Words.Word(f.label)
			l := g.st.Figures.Label.Render(label)
			gap := cell - 1 - ansi.StringWidth(label) - ansi.StringWidth(f.value)
			sb.WriteString(l + strings.Repeat(" ", max(1, gap)) + v + " ")
		}
		lines = append(lines, sb.String())
	}
	return lines
}

func num(n int64) string { return fmt.Sprintf("%d", n) }

// shortID is the last 8 characters of an id, as the tables and the timeline
// show it: a uuid v7 starts with its timestamp, its random tail tells ids apart.
func shortID(id string) string {
	if len(id) > 8 {
		return "…" + id[len(id)-8:]
	}
	return id
}

// CompactView is the summary strip of a narrow screen: per pipeline, the
// three violations, then the figures that explain them.
func (g Pane) CompactView() string {
	return screen.Block(strings.Join(g.CompactLines(g.w), "\n"), g.w, g.h)
}

// CompactHeight is how many lines the summary takes at width w.
func (g Pane) CompactHeight(w int) int { return len(g.CompactLines(w)) }

// CompactLines are the summary's lines at width w: each pipeline's figures
// wrap between two figures onto lines of their own, never cut (a lesson
// points at them: dup. ignored, slot WAL, the provider's charges).
func (g Pane) CompactLines(width int) []string {
	lines := []string{screen.PaneTitle(g.st, false, g.st.Words.T("Guarantees"), g.st.Words.T("the oracle, from the database"), width)}
	wrap := func(first string, items []string) []string {
		var out []string
		cur, curW, has := first, ansi.StringWidth(first), false
		for _, it := range items {
			add := ansi.StringWidth(it)
			if has {
				add += 2
			}
			if has && width > 0 && curW+add > width {
				out = append(out, cur)
				cur, curW, has = "        ", 8, false
				add = ansi.StringWidth(it)
			}
			if has {
				cur += "  "
			}
			cur, curW, has = cur+it, curW+add, true
		}
		return append(out, cur)
	}
	fs := g.st.Figures
	w := g.st.Words
	v := func(label string, n int64, example string) string {
		label = w.Word(label)
		if n == 0 {
			return fs.Label.Render(label+" ") + fs.Good.Render("0✓")
		}
		s := fs.Label.Render(label+" ") + fs.Bad.Render(fmt.Sprintf("%d✗", n))
		if example != "" {
			s += fs.Example.Render(" " + shortID(example))
		}
		return s
	}
	f := func(label string, n int64) string {
		return fs.Label.Render(w.Word(label)+" ") + fs.Value.Render(num(n))
	}
	for _, o := range g.oracles {
		broken := []string{v("lost", o.LostEvents, o.LostExample),
			v("phantom", o.PhantomEffects, o.PhantomExample), v("duplicate effects", o.DuplicateEffects, o.DuplicateExample)}
		if o.SuppressedEffects > 0 {
			// S22, only where it happens; first, so it leads.
			broken = append([]string{v("suppressed effects", o.SuppressedEffects, o.SuppressedExample)}, broken...)
		}
		if o.External != "" {
			// S19, where accounting charges a card; first for the same reason.
			broken = append([]string{v("lost charges", o.LostCharges, o.LostChargeExample), v("double charges", o.DoubleCharges, o.DoubleChargeExample)}, broken...)
		}
		if o.Slots > 0 {
			// relay: cdc: the WAL its slot holds, beside the guarantees it
			// does not change.
			broken = append(broken, fs.Label.Render(w.Word(scenes.FigureLabel("slot_retained_bytes"))+" ")+fs.Value.Render(byteSize(w, o.SlotRetainedBytes)))
		}
		lines = append(lines, wrap(" "+fs.Heading.Render(screen.Pad(o.Pipeline, 7)), broken)...)
		figs := []string{f("payments", o.Payments), f("published", o.Published), f("publishes", o.Publishes),
			f("deliveries", o.Deliveries), f("dup. ignored", o.DuplicatesIgnored), f("effects", o.Effects)}
		if o.Pipeline != "outbox" {
			// published counts outbox rows marked published: the naive
			// writer has none, and a 0 beside its publishes read as a
			// contradiction.
			figs = slices.Delete(figs, 1, 2)
		}
		lines = append(lines, wrap("        ", figs)...)
	}
	switch {
	case g.stale != "":
		lines = append(lines, g.staleLines()...)
	case len(g.oracles) == 0:
		lines = append(lines, g.st.Pane.Empty.Render("  "+g.st.Words.T("waiting for the oracle…")))
	}
	return lines
}
