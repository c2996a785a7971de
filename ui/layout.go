package ui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/ui/style"
)

// Minimum terminal size; below it the TUI says so instead of drawing.
const (
	minWidth  = 80
	minHeight = 24
)

// minBodyUnderHelp is the fewest rows the panes keep above the full help;
// a taller help is drawn over the foot of the body instead.
const minBodyUnderHelp = 10

// tooSmall is what a terminal below the minimum shows, exactly.
const tooSmall = "terminal too small: need 80×24"

// fitLine cuts a styled line to w cells and pads it with spaces to w.
func fitLine(s string, w int) string { return style.FitLine(s, w) }

// fitLines makes exactly h lines of exactly w cells.
func fitLines(lines []string, w, h int) []string { return style.FitLines(lines, w, h) }

// block fits text (newline separated) to a w×h block.
func block(s string, w, h int) string {
	return strings.Join(fitLines(strings.Split(s, "\n"), w, h), "\n")
}

// joinColumns puts blocks side by side, separated by a column of sep
// (lipgloss joins them; each block is already fitted to its width).
func joinColumns(sep string, blocks ...string) string {
	h := 0
	for _, b := range blocks {
		h = max(h, lipgloss.Height(b))
	}
	rule := strings.TrimSuffix(strings.Repeat(sep+"\n", h), "\n")
	parts := make([]string, 0, 2*len(blocks))
	for i, b := range blocks {
		if i > 0 {
			parts = append(parts, rule)
		}
		parts = append(parts, b)
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, parts...)
}

// paneTitle draws a pane's title line: the name, a detail, a rule to width.
func paneTitle(st *Styles, focused bool, title, detail string, w int) string {
	ts := st.Pane.Title
	if focused {
		ts = st.Pane.TitleFocused
	}
	mark := "  "
	if focused {
		mark = "▸ "
	}
	s := ts.Render(mark+title) + " " + st.App.Muted.Render(detail)
	for ansi.StringWidth(s) > w && detail != "" {
		// The detail gives way whole, its last " · " part first, never
		// cut mid-word ("desde la base de da…").
		if i := strings.LastIndex(detail, " · "); i >= 0 {
			detail = detail[:i]
		} else {
			detail = ""
		}
		s = ts.Render(mark+title) + " " + st.App.Muted.Render(detail)
	}
	rest := w - ansi.StringWidth(s) - 1
	if rest > 0 {
		s += " " + st.Pane.Gutter.Render(strings.Repeat("─", rest))
	}
	return fitLine(s, w)
}

// pad returns s padded on the right with spaces to n cells (no cut).
func pad(s string, n int) string { return style.Pad(s, n) }

// render applies a style only when there is text: an empty cell stays
// empty even under a style with padding or background.
func render(st lipgloss.Style, s string) string {
	if s == "" {
		return ""
	}
	return st.Render(s)
}

// stripped removes styling, so a line can be restyled as a whole.
func stripped(s string) string { return ansi.Strip(s) }
