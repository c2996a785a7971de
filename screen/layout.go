package screen

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// FitLine cuts a styled line to w cells ("…" where it is cut) and pads it
// with spaces to w.
func FitLine(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	if sw > w {
		s = ansi.Truncate(s, w, "…")
		sw = ansi.StringWidth(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// FitLines makes exactly h lines of exactly w cells.
func FitLines(lines []string, w, h int) []string {
	out := make([]string, h)
	for i := 0; i < h; i++ {
		l := ""
		if i < len(lines) {
			l = lines[i]
		}
		out[i] = FitLine(l, w)
	}
	return out
}

// Pad pads s with spaces to n cells; a wider s is left as it is.
func Pad(s string, n int) string {
	if w := ansi.StringWidth(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

// Block fits text (newline separated) to a w×h block.
func Block(s string, w, h int) string {
	return strings.Join(FitLines(strings.Split(s, "\n"), w, h), "\n")
}

// JoinColumns puts blocks side by side, separated by a column of sep
// (lipgloss joins them; each block is already fitted to its width).
func JoinColumns(sep string, blocks ...string) string {
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

// PaneTitle draws a pane's title line: the name, a detail, a rule to width.
func PaneTitle(st *Styles, focused bool, title, detail string, w int) string {
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
	return FitLine(s, w)
}

// NonEmpty applies a style only when there is text: an empty cell stays
// empty even under a style with padding or background.
func NonEmpty(st lipgloss.Style, s string) string {
	if s == "" {
		return ""
	}
	return st.Render(s)
}

// OneLine joins a text's lines and runs of spaces into one line.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// unbreakable turns the text's hyphens into no-break hyphens while it is
// wrapped; breakable gives the lines their ordinary characters back (and
// the spaces of a code span the lesson pane made unbreakable).
var (
	unbreakable = strings.NewReplacer("-", "\u2011")
	breakable   = strings.NewReplacer("\u00a0", " ", "\u2011", "-")
)

// WrapWhole wraps a line of text at spaces only (a hyphen inside a name,
// relay-1, is not a place to break), each line after the first indented
// by hang cells.
func WrapWhole(s string, width, hang int) []string {
	lines := strings.Split(lipgloss.Wrap(unbreakable.Replace(s), max(10, width-hang), " "), "\n")
	for i, line := range lines {
		line = breakable.Replace(line)
		if i > 0 {
			line = strings.Repeat(" ", hang) + line
		}
		lines[i] = line
	}
	return lines
}

// ShortCheckpoint drops the actor-kind prefix: beside relay-1, "published"
// says what "relay.published" does.
func ShortCheckpoint(cp string) string {
	if i := strings.IndexByte(cp, '.'); i >= 0 {
		return cp[i+1:]
	}
	return cp
}
