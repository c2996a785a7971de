package story

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/outboxlab/outboxlab/catalog"
)

// The diagram's layout.
const (
	gutter   = 13 // "15:04:05.000 "
	minWidth = 40
	maxGap   = 28  // columns no farther apart than this, however wide the terminal
	wide     = 100 // from this width on, arrows carry their long labels; below it, their short ones
)

// Render draws a story as a sequence diagram in plain text, in English: see
// RenderIn.
func Render(s Story, width int) string { return RenderIn(s, width, english) }

// RenderIn draws a story as a sequence diagram in plain text, its words in
// the printer's language, no line wider than width (at least 40): a column
// per participant, a row per event, the virtual time in the left gutter when
// it changes. An arrow's label sits on the arrow when it fits, else on the
// row above it; terminals narrower than 100 columns get the short labels,
// and a label longer than the row is cut.
func RenderIn(s Story, width int, p *catalog.Printer) string {
	if p == nil {
		p = english
	}
	width = max(width, minWidth)
	var b strings.Builder
	title := p.T("message %d of %d  %s", s.Index, s.Total, Short(s.Message))
	if s.Payment != "" {
		title += "  " + p.T("payment %s", Short(s.Payment))
	}
	title += "  " + p.Word(s.Pipeline+" pipeline") // outbox pipeline, naive pipeline
	b.WriteString(cut(title, width) + "\n\n")
	if len(s.Participants) > 0 {
		// The client is the one participant with no actor's name: its
		// word is the reader's.
		names := slices.Clone(s.Participants)
		for i, n := range names {
			if n == Client {
				names[i] = p.Word(Client)
			}
		}
		l := newLayout(names, s.Participants, width)
		for _, row := range l.header() {
			b.WriteString(row + "\n")
		}
		shown := ""
		for _, e := range s.Events {
			at := e.At.Format("15:04:05.000")
			for i, row := range l.event(e, e.Label.In(p), e.Short.In(p)) {
				stamp := ""
				if i == 0 && at != shown {
					stamp, shown = at, at
				}
				b.WriteString(l.finish(row, stamp) + "\n")
			}
		}
		b.WriteString(l.finish(l.blank(), "") + "\n")
	}
	if len(s.Outcome) > 0 {
		b.WriteString("\n")
		for _, line := range s.Outcome {
			for _, w := range wrap(line.In(p), width-2) {
				b.WriteString(w + "\n")
			}
		}
	}
	return b.String()
}

// layout places the participants' lifelines.
type layout struct {
	width int
	names []string       // as the header shows them (cut when they must be)
	orig  []string       // as events name them
	col   map[string]int // participant → x of its lifeline
	xs    []int
	right int // the last column a row may use
}

// newLayout lays out participants (as events name them) under their
// names as the header shows them.
func newLayout(names, participants []string, width int) *layout {
	l := &layout{width: width, names: append([]string(nil), names...), orig: participants, col: map[string]int{}}
	l.place()
	// Names that overlap even on two header rows are cut to fit.
	if gap := l.gap(); gap > 0 && l.overlaps(2) {
		for i, n := range l.names {
			l.names[i] = cut(n, max(2*gap-1, 1))
		}
		l.place()
	}
	return l
}

func (l *layout) gap() int {
	if len(l.xs) < 2 {
		return 0
	}
	return l.xs[1] - l.xs[0]
}

// place spreads the lifelines evenly over the width, each name centred on
// its own.
func (l *layout) place() {
	n := len(l.names)
	first := gutter + width(l.names[0])/2
	lastName := l.names[n-1]
	last := l.width - 1 - (width(lastName) - 1 - width(lastName)/2)
	gap := 0
	if n > 1 {
		gap = min(max((last-first)/(n-1), 1), maxGap)
	}
	l.xs = make([]int, n)
	for i := range l.names {
		l.xs[i] = min(first+i*gap, l.width-1) // more participants than columns: they share the last
		l.col[l.orig[i]] = l.xs[i]
	}
	l.right = min(l.width-1, l.xs[n-1]+width(lastName))
}

// overlaps reports whether names every step-th column apart collide.
func (l *layout) overlaps(step int) bool {
	for i := 0; i+step < len(l.names); i++ {
		endA := l.xs[i] - width(l.names[i])/2 + width(l.names[i])
		startB := l.xs[i+step] - width(l.names[i+step])/2
		if startB <= endA {
			return true
		}
	}
	return false
}

func (l *layout) blank() []rune {
	row := []rune(strings.Repeat(" ", l.width))
	for _, x := range l.xs {
		row[x] = '│'
	}
	return row
}

// header is the names over their lifelines: one row, or two alternating
// rows when neighbours would touch.
func (l *layout) header() []string {
	rows := 1
	if l.overlaps(1) {
		rows = 2
	}
	out := make([]string, rows)
	for r := range rows {
		row := []rune(strings.Repeat(" ", l.width))
		for i, name := range l.names {
			switch {
			case i%rows == r:
				put(row, l.xs[i]-width(name)/2, name, l.width)
			case i%rows < r:
				row[l.xs[i]] = '│'
			}
		}
		out[r] = l.finish(row, "")
	}
	return out
}

func (l *layout) finish(row []rune, stamp string) string {
	if stamp != "" {
		put(row, 0, stamp, gutter-1)
	}
	return strings.TrimRight(string(row), " ")
}

// x is a participant's column.
func (l *layout) x(p string) int {
	if x, ok := l.col[p]; ok {
		return x
	}
	return l.xs[0]
}

// event draws one event with its label and short label: usually one row,
// two when an arrow's label does not fit on it.
func (l *layout) event(e Event, label, short string) [][]rune {
	switch e.Shape {
	case Divider:
		row := l.blank()
		for x := gutter; x <= l.right; x++ {
			row[x] = '┄'
		}
		label := " " + label + " "
		put(row, gutter+max((l.right-gutter-width(label))/2, 1), label, l.right+1)
		return [][]rune{row}
	case Note, Wreck:
		return [][]rune{l.note(e, label, short)}
	}
	return l.arrow(e, label, short)
}

// note writes the text beside its participant's lifeline: to the right when
// there is room, else to the left; a crash marks the lifeline itself.
func (l *layout) note(e Event, label, short string) []rune {
	row := l.blank()
	x := l.x(e.From)
	mark, text := '├', label
	if e.Shape == Wreck {
		mark = '✗'
		text = strings.TrimPrefix(text, "✗ ")
	}
	row[x] = mark
	right := func(text string) []rune {
		put(row, x+1, "╴"+cut(text, l.width-x-2), l.width)
		return row
	}
	left := func(text string) []rune {
		text = cut(text, x-1-gutter)
		row[x-1] = '╶'
		put(row, x-1-width(text), text, x-1)
		return row
	}
	short = strings.TrimPrefix(short, "✗ ")
	roomRight, roomLeft := l.width-x-2, x-1-gutter
	switch {
	case width(text) <= roomRight:
		return right(text)
	case width(text) <= roomLeft:
		return left(text)
	case width(short) <= roomRight:
		return right(short)
	case width(short) <= roomLeft:
		return left(short)
	case roomRight >= roomLeft:
		return right(short)
	}
	return left(short)
}

// arrow draws From → To with the label on it, or above it when it does not
// fit between the two lifelines.
func (l *layout) arrow(e Event, label, short string) [][]rune {
	row := l.blank()
	a, b := l.x(e.From), l.x(e.To)
	lo, hi := min(a, b), max(a, b)
	body := '─'
	if e.Shape == Reply {
		body = '┄'
	}
	for x := lo + 1; x < hi; x++ {
		row[x] = body
	}
	head := '▶'
	switch {
	case e.Shape == Lost:
		head = '╳'
	case b < a:
		head = '◀'
	}
	headX := hi - 1
	if b < a {
		headX = lo + 1
	}
	if hi-lo >= 2 {
		row[headX] = head
	}
	room := hi - lo - 5 // a body cell, the spaces round the label, and the head
	inline := func(label string) [][]rune {
		free := hi - lo - 4 - width(label) // body cells beside the label; spare ones go to the tail
		start := lo + 1 + (free+1)/2
		if b < a {
			start = lo + 2 + free/2
		}
		put(row, start, " "+label+" ", hi)
		return [][]rune{row}
	}
	over := func(label string) [][]rune {
		above := l.blank()
		start := lo + 2
		if start+width(label) > l.width {
			start = max(l.width-width(label), gutter)
		}
		put(above, start, cut(label, l.width-start), l.width)
		return [][]rune{above, row}
	}
	fits := func(label string) bool { return width(label) <= l.width-gutter }
	if l.width < wide || !fits(label) {
		label = short
	}
	if hi-lo >= 2 && width(label) <= room {
		return inline(label)
	}
	return over(label)
}

// put writes s into row from x on, stopping before limit.
func put(row []rune, x int, s string, limit int) {
	limit = min(limit, len(row))
	for _, r := range s {
		if x >= limit {
			return
		}
		if x >= 0 {
			row[x] = r
		}
		x++
	}
}

func width(s string) int { return utf8.RuneCountInString(s) }

// cut shortens s to n cells, ending in … when it had to.
func cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if width(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// wrap breaks a sentence into lines of at most n cells, indenting the rest.
func wrap(s string, n int) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case width(line)+1+width(w) <= n:
			line += " " + w
		default:
			out = append(out, line)
			line = "  " + w
		}
	}
	if line != "" {
		out = append(out, line)
	}
	for i, l := range out {
		out[i] = cut(l, n+2)
	}
	return out
}
