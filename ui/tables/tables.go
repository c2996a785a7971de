package tables

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/screen"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/sim"
)

// Source reads a window of a table; *sim.Sim is one.
type Source interface {
	Table(ctx context.Context, pipeline, name string, offset, limit int) (sim.Table, error)
}

// keyMap are the tables pane's own keys.
type keyMap struct {
	screen.ScrollKeys
	Top, Bottom, NextTable, PrevTable, Pipeline key.Binding
}

func defaultKeyMap(w *catalog.Printer) keyMap {
	return keyMap{
		ScrollKeys: screen.NewScrollKeys(w),
		Top:        key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", w.T("first row"))),
		Bottom:     key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", w.T("last row"))),
		NextTable:  key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→", w.T("next table"))),
		PrevTable:  key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←", w.T("prev table"))),
		Pipeline:   key.NewBinding(key.WithKeys("o"), key.WithHelp("o", w.T("the other pipeline's tables")), key.WithDisabled()),
	}
}

func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.PrevTable, k.NextTable, k.Down, k.Pipeline}
}

func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.PrevTable, k.NextTable, k.Pipeline}}
}

// Pane shows one table of one pipeline, read from the real database:
// only the rows that fit are fetched and drawn. Rows whose key was not seen
// before the last change of the simulation are highlighted.
type Pane struct {
	st      *screen.Styles
	keys    keyMap
	w, h    int
	focused bool

	src       Source
	simID     int
	pipelines []string
	pipe      int // index in pipelines
	table     int // index in sim.TableNames
	offset    int
	follow    bool // keep the newest rows in view

	data sim.Table
	err  error
	gen  int // change generation of data
	// named are the columns the lesson's step names: drawn whole.
	named   []string
	seen    map[string]bool // keys seen before the latest change
	changed map[string]bool // keys new in the latest change
	// reading counts the pane's own reads in flight (a switch, a scroll):
	// until they answer, data is not yet the window asked for.
	reading int
}

// ReadMsg is a window of a table read for the pane.
type ReadMsg struct {
	SimID    int
	Gen      int // change generation it reflects (0: a scroll, not a change)
	Pipeline string
	Table    sim.Table
	Err      error
	read     bool // answers one of the pane's own reads (fetch), not a snapshot
}

// Request is the window the pane shows: which table, which rows.
type Request struct {
	Pipeline, Name string
	Offset, Limit  int
}

// New is an empty tables pane drawn with st.
func New(st *screen.Styles) Pane {
	return Pane{st: st, keys: defaultKeyMap(st.Words), follow: true, seen: map[string]bool{}, changed: map[string]bool{}}
}

// Reset points the pane at a new simulation (src nil: none yet).
func (t *Pane) Reset(src Source, simID int, pipelines []string) {
	t.src, t.simID, t.pipelines = src, simID, pipelines
	t.reading = 0 // reads of the simulation before are dropped unread
	if t.pipe >= len(pipelines) {
		t.pipe = 0
	}
	// In compare mode the outbox is what the tables are about, and its
	// outbox table the one to watch.
	if len(pipelines) > 1 {
		t.pipe = len(pipelines) - 1
	}
	t.table = 0
	if t.pipeline() == "outbox" {
		t.table = 1
	}
	t.offset, t.follow, t.data, t.err, t.gen = 0, true, sim.Table{}, nil, 0
	t.seen, t.changed = map[string]bool{}, map[string]bool{}
	t.keys.Pipeline.SetEnabled(len(pipelines) > 1)
}

// SetSize gives the pane its room.
func (t *Pane) SetSize(w, h int) { t.w, t.h = w, h }

// SetFocused marks the pane as the one that takes the keys.
func (t *Pane) SetFocused(focused bool) { t.focused = focused }

// SetNamed is the columns the lesson's step names: drawn whole, the last
// to give way on a narrow pane.
func (t *Pane) SetNamed(columns []string) { t.named = columns }

// Table is the window of the table on screen.
func (t Pane) Table() sim.Table { return t.data }

// Reading says the pane waits for reads of its own (a switch, a scroll):
// until they answer, Table is not yet the window asked for.
func (t Pane) Reading() bool { return t.reading > 0 }

// ShortHelp is the pane's keys in the help line.
func (t Pane) ShortHelp() []key.Binding { return t.keys.ShortHelp() }

// FullHelp is the pane's keys in the full help.
func (t Pane) FullHelp() [][]key.Binding { return t.keys.FullHelp() }

// Visible is how many rows fit under the title and the header.
func (t Pane) Visible() int { return max(1, t.h-2) }

func (t Pane) pipeline() string {
	if t.pipe < len(t.pipelines) {
		return t.pipelines[t.pipe]
	}
	return ""
}

// Request is the window the pane shows now (newest rows when following):
// what a snapshot of the simulation reads for it.
func (t Pane) Request() Request {
	off := t.offset
	if t.follow {
		off = max(0, t.data.Total-t.Visible())
	}
	return Request{Pipeline: t.pipeline(), Name: sim.TableNames[t.table], Offset: off, Limit: t.Visible()}
}

// fetchCmd reads the window in a command; gen tags a read after a change.
func fetchCmd(src Source, simID, gen int, r Request) tea.Cmd {
	if src == nil || r.Pipeline == "" {
		return nil
	}
	return func() tea.Msg {
		tb, err := src.Table(context.Background(), r.Pipeline, r.Name, r.Offset, r.Limit)
		return ReadMsg{SimID: simID, Gen: gen, Pipeline: r.Pipeline, Table: tb, Err: err, read: true}
	}
}

// Fetch reads the window the pane asks for now, counted in reading (the
// root asks after a resize changed how many rows fit).
func (t Pane) Fetch() (Pane, tea.Cmd) {
	cmd := fetchCmd(t.src, t.simID, 0, t.Request())
	if cmd != nil {
		t.reading++
	}
	return t, cmd
}

// Update takes the windows read for the pane, and the keys and the mouse
// wheel while it has the focus.
func (t Pane) Update(msg tea.Msg) (Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case ReadMsg:
		if msg.read && t.reading > 0 {
			t.reading--
		}
		if msg.SimID != t.simID || msg.Pipeline != t.pipeline() || msg.Table.Name != sim.TableNames[t.table] && msg.Err == nil {
			return t, nil
		}
		t.err = msg.Err
		if msg.Err != nil {
			return t, nil
		}
		if msg.Gen > t.gen {
			// A read after a change: what is new since the previous one is
			// what the change did.
			t.changed = map[string]bool{}
			for _, k := range msg.Table.Keys {
				if !t.seen[k] {
					t.changed[k] = true
				}
			}
			t.gen = msg.Gen
		}
		for _, k := range msg.Table.Keys {
			t.seen[k] = true
		}
		t.data = msg.Table
		if !t.follow {
			t.offset = msg.Table.Offset
		}
		// Following, the total may have grown since the request: read again.
		if t.follow && msg.Table.Offset != max(0, msg.Table.Total-t.Visible()) {
			return t.Fetch()
		}
		return t, nil
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			return t.scroll(-3)
		case tea.MouseWheelDown:
			return t.scroll(3)
		}
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, t.keys.Up):
			return t.scroll(-1)
		case key.Matches(msg, t.keys.Down):
			return t.scroll(1)
		case key.Matches(msg, t.keys.PageUp):
			return t.scroll(-t.Visible())
		case key.Matches(msg, t.keys.PageDown):
			return t.scroll(t.Visible())
		case key.Matches(msg, t.keys.Top):
			t.follow, t.offset = false, 0
			return t.Fetch()
		case key.Matches(msg, t.keys.Bottom):
			t.follow = true
			return t.Fetch()
		case key.Matches(msg, t.keys.NextTable):
			return t.switchTo(t.pipe, (t.table+1)%len(sim.TableNames))
		case key.Matches(msg, t.keys.PrevTable):
			return t.switchTo(t.pipe, (t.table+len(sim.TableNames)-1)%len(sim.TableNames))
		case key.Matches(msg, t.keys.Pipeline):
			return t.switchTo((t.pipe+1)%max(1, len(t.pipelines)), t.table)
		}
	}
	return t, nil
}

func (t Pane) switchTo(pipe, table int) (Pane, tea.Cmd) {
	t.pipe, t.table = pipe, table
	t.offset, t.follow = 0, true
	t.data = sim.Table{Name: sim.TableNames[table]}
	t.seen, t.changed = map[string]bool{}, map[string]bool{}
	t.gen = 0
	return t.Fetch()
}

func (t Pane) scroll(d int) (Pane, tea.Cmd) {
	last := max(0, t.data.Total-t.Visible())
	off := t.data.Offset + d
	if t.follow {
		off = last + d
	}
	off = min(max(0, off), last)
	t.follow = off >= last
	t.offset = off
	if off == t.data.Offset {
		return t, nil
	}
	return t.Fetch()
}

// View draws the pane: its title and tabs, the header, the rows in view.
func (t Pane) View() string {
	name := sim.TableNames[t.table]
	detail := t.st.Words.T("%d rows", t.data.Total)
	if len(t.pipelines) > 1 {
		detail = t.pipeline() + " · " + detail
	}
	if t.data.Total > t.Visible() {
		detail += fmt.Sprintf(" · %d–%d", t.data.Offset+1, t.data.Offset+len(t.data.Rows))
	}
	if t.src != nil || len(t.data.Columns) > 0 {
		// What the grid leaves out or abbreviates, said where it is drawn.
		all, _ := visibleColumns(t.data, nil)
		cols, rows, widths := t.columnLayout()
		if n := len(all) - len(cols); n > 0 {
			detail += " · " + t.st.Words.T("%d columns left out", n)
		}
		for i := range cols {
			if idColumn(rows, i) && widths[i] < columnWidth(t.st.Words.Column(cols[i]), rows, i) {
				detail += " · " + t.st.Words.T("…1a2b: an id's end")
				break
			}
		}
	}
	tabs := t.tabs()
	lines := []string{screen.PaneTitle(t.st, t.focused, t.st.Words.T("Tables")+" "+tabs, detail, t.w)}
	switch {
	case t.err != nil:
		lines = append(lines, t.st.App.Error.Render("  "+t.err.Error()))
	case t.src == nil && len(t.data.Columns) == 0:
		lines = append(lines, t.st.Pane.Empty.Render("  "+t.st.Words.Word("waiting for the simulator…")))
	default:
		lines = append(lines, t.grid(name)...)
	}
	return screen.Block(strings.Join(lines, "\n"), t.w, t.h)
}

// tabs names the tables with the current one marked.
func (t Pane) tabs() string {
	short := map[string]string{"payments": "payments", "outbox_messages": "outbox", "inbox_messages": "inbox", "ledger_entries": "ledger", "notifications": "notifications", "parked_messages": "parked"}
	parts := make([]string, len(sim.TableNames))
	for i, n := range sim.TableNames {
		s := short[n]
		if i == t.table {
			s = "[" + s + "]"
		}
		parts[i] = s
	}
	if t.w < 110 {
		return "[" + short[sim.TableNames[t.table]] + "]"
	}
	return strings.Join(parts, " ")
}

// spareFirst are the columns of outbox_messages a narrow pane leaves out
// before the others, in that order (what a step names stays).
var spareFirst = []string{"seq", "aggregate", "next attempt", "ver"}

// columnLayout is the columns in view, their rows and their widths at the
// pane's width. A column is drawn whole or not at all: its header and every
// cell in view (a long text, last error, to 36 cells). Only ids are drawn
// narrower, by one rule the title's legend states: their last digits after
// an ellipsis (…deb1bbf2, as the timeline writes them). When the columns
// still do not fit, the last ones the step does not name are left out,
// the id column last of all; the title says how many.
func (t Pane) columnLayout() ([]string, [][]string, []int) {
	named := map[string]bool{}
	if t.data.Name == "outbox_messages" {
		for _, c := range t.named {
			named[c] = true
		}
	}
	cols, rows := visibleColumns(t.data, named)
	// Left-out columns are cut from copies: rows may be the pane's own
	// data, which the next frame draws again.
	cols, rows = slices.Clone(cols), slices.Clone(rows)
	widths := make([]int, len(cols))
	least := make([]int, len(cols)) // an id's abbreviated width, else its whole width
	for i, c := range cols {
		widths[i] = ansi.StringWidth(t.st.Words.Column(c))
	}
	for _, r := range rows {
		for i := range widths {
			if i < len(r) {
				widths[i] = max(widths[i], ansi.StringWidth(r[i]))
			}
		}
	}
	for i := range widths {
		if !named[cols[i]] {
			widths[i] = min(widths[i], 36)
		}
		least[i] = widths[i]
		if idColumn(rows, i) {
			least[i] = min(widths[i], max(ansi.StringWidth(t.st.Words.Column(cols[i])), idTailWidth))
		}
	}
	avail := func() int { return t.w - 2 - 2*(len(cols)-1) }
	// Ids first give up their heads, the widest first.
	for i := range widths {
		if sum(widths) <= avail() {
			break
		}
		widths[i] = least[i]
	}
	for sum(widths) > avail() && len(cols) > 1 {
		last := -1
		for i := range cols {
			if !named[cols[i]] && i > 0 { // the id goes last: it says which row
				last = i
			}
		}
		// The outbox's story is in its attempts, lease and published
		// columns: the order and aggregate columns give way first.
		for _, c := range spareFirst {
			if i := slices.Index(cols, c); i > 0 && !named[c] {
				last = i
				break
			}
		}
		if last < 0 {
			break
		}
		cols = append(cols[:last:last], cols[last+1:]...)
		widths = append(widths[:last:last], widths[last+1:]...)
		for k, r := range rows {
			if last < len(r) {
				rows[k] = append(r[:last:last], r[last+1:]...)
			}
		}
	}
	// A text the step names (a last error) gives way next, to a floor: its
	// rows wrap it inside the column when they fit the pane (grid).
	for i := range cols {
		if over := sum(widths) - avail(); over > 0 && named[cols[i]] && textColumn(rows, i) {
			widths[i] = max(min(widths[i], textFloor), widths[i]-over)
		}
	}
	// What the step names and the id are left: only then is a column the
	// step does not name cut, the widest first.
	for sum(widths) > avail() {
		wi := -1
		for i, w := range widths {
			if !named[cols[i]] && w > 3 && (wi < 0 || w > widths[wi]) {
				wi = i
			}
		}
		if wi < 0 {
			break
		}
		widths[wi]--
	}
	return cols, rows, widths
}

// columnWidth is column i's whole width: its header's or its widest cell's.
func columnWidth(name string, rows [][]string, i int) int {
	w := ansi.StringWidth(name)
	for _, r := range rows {
		if i < len(r) {
			w = max(w, ansi.StringWidth(r[i]))
		}
	}
	return w
}

// textFloor is the narrowest a named text column is drawn, wrapped.
const textFloor = 24

// textColumn says column i holds sentences: a cell with a space in it.
func textColumn(rows [][]string, i int) bool {
	for _, r := range rows {
		if i < len(r) && strings.Contains(r[i], " ") {
			return true
		}
	}
	return false
}

// idTailWidth is an abbreviated id: an ellipsis and its last eight digits.
const idTailWidth = 9

// idColumn says column i holds ids (hexadecimal, with a uuid's hyphens).
func idColumn(rows [][]string, i int) bool {
	seen := false
	for _, r := range rows {
		if i >= len(r) || r[i] == "" || r[i] == "-" {
			continue
		}
		if len(r[i]) < idTailWidth || strings.Trim(r[i], "0123456789abcdef-") != "" {
			return false
		}
		seen = true
	}
	return seen
}

// fitCell draws a cell in w cells: whole, or an id by its last digits.
func fitCell(c string, w int) string {
	if ansi.StringWidth(c) <= w {
		return screen.FitLine(c, w)
	}
	if w >= 2 && strings.Trim(c, "0123456789abcdef-") == "" {
		return "…" + c[len(c)-(w-1):]
	}
	return screen.FitLine(c, w)
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// grid draws the header and the visible rows, columns sized to their
// content and cut to the pane's width.
func (t Pane) grid(name string) []string {
	cols, rows, widths := t.columnLayout()
	if len(cols) == 0 {
		return []string{t.st.Pane.Empty.Render("  " + t.st.Words.Word("no rows yet"))}
	}
	row := func(cells []string) string {
		var sb strings.Builder
		sb.WriteString("  ")
		for i, w := range widths {
			if i > 0 {
				sb.WriteString("  ")
			}
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			sb.WriteString(fitCell(c, w))
		}
		return sb.String()
	}
	headers := make([]string, len(cols))
	for i, c := range cols {
		headers[i] = t.st.Words.Column(c)
	}
	lines := []string{t.st.Table.Header.Render(row(headers))}
	if len(rows) == 0 {
		lines = append(lines, t.st.Pane.Empty.Render("  "+t.st.Words.Word("(empty)")))
	}
	// A text wider than its column (a last error) wraps inside it, the row
	// taking more lines, when every row still fits the pane so: else each
	// row keeps one line, its text cut.
	split := make([][][]string, len(rows))
	height := 0
	for i, r := range rows {
		split[i] = rowLines(r, widths)
		height += len(split[i])
	}
	wrap := height <= t.h-2
	for i, r := range rows {
		physical := []string{row(r)}
		if wrap {
			physical = nil
			for _, cells := range split[i] {
				physical = append(physical, row(cells))
			}
		}
		for _, s := range physical {
			s = screen.FitLine(s, t.w)
			if i < len(t.data.Keys) && t.changed[t.data.Keys[i]] {
				lines = append(lines, t.st.Table.Changed.Render(s))
			} else {
				lines = append(lines, t.st.Table.Row.Render(s))
			}
		}
	}
	return lines
}

// rowLines is a row drawn on as many lines as its widest text needs: each
// line's cells, a text cell wrapped at spaces inside its column (an id is
// drawn by its end instead, on the first line).
func rowLines(cells []string, widths []int) [][]string {
	wrapped := make([][]string, len(widths))
	n := 1
	for i, w := range widths {
		c := ""
		if i < len(cells) {
			c = cells[i]
		}
		wrapped[i] = []string{c}
		if ansi.StringWidth(c) > w && strings.Contains(c, " ") {
			wrapped[i] = strings.Split(lipgloss.Wrap(c, w, " "), "\n")
		}
		n = max(n, len(wrapped[i]))
	}
	out := make([][]string, n)
	for j := range out {
		out[j] = make([]string, len(widths))
		for i := range widths {
			if j < len(wrapped[i]) {
				out[j][i] = strings.TrimRight(wrapped[i][j], " ")
			}
		}
	}
	return out
}

// visibleColumns drops the columns that are empty in every row in view
// (last_error, mostly): on a narrow screen the others need the room. A
// column the step names stays, empty or not.
func visibleColumns(tb sim.Table, named map[string]bool) ([]string, [][]string) {
	if len(tb.Rows) == 0 {
		return tb.Columns, nil
	}
	var keep []int
	for i := range tb.Columns {
		if named[tb.Columns[i]] {
			keep = append(keep, i)
			continue
		}
		for _, r := range tb.Rows {
			if i < len(r) && r[i] != "" {
				keep = append(keep, i)
				break
			}
		}
	}
	if len(keep) == len(tb.Columns) {
		return tb.Columns, tb.Rows
	}
	cols := make([]string, len(keep))
	for j, i := range keep {
		cols[j] = tb.Columns[i]
	}
	rows := make([][]string, len(tb.Rows))
	for k, r := range tb.Rows {
		row := make([]string, len(keep))
		for j, i := range keep {
			if i < len(r) {
				row[j] = r[i]
			}
		}
		rows[k] = row
	}
	return cols, rows
}
