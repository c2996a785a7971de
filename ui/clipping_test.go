package ui

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

// clipSizes are the terminal sizes a lesson is read at in the clipping
// check: the smallest the TUI supports and a common larger one.
var clipSizes = [][2]int{{120, 40}, {80, 24}}

// clipped gathers what the lessons-by-keys test found cut, across its
// lessons (they play side by side).
type clipped struct {
	mu    sync.Mutex
	found []string
	// scan reads every frame the lessons show, at every scan size.
	scan *frameScan
}

func (c *clipped) add(s ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.found = append(c.found, s...)
}

// busyWords are the words that end in an ellipsis of their own: a check
// still being read is not a check cut.
var busyWords = regexp.MustCompile(`checking…|comprobando…`)

// clippedOnScreen reads the screen at each clip size as the learner sees it
// and lists what a lesson points at that is not drawn whole: a column the
// step's text names (absent, or its header or a cell cut with "…"), a
// check line cut, the scroll mark covering the end of a line, a command
// broken at a hyphen. It reads only the drawn screen, so it counts the same
// way before and after a fix. The terminal is put back at 120×40.
func clippedOnScreen(d *driver, where string) []string {
	d.t.Helper()
	var out []string
	for _, size := range clipSizes {
		d.Handle(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		d.settle()
		at := fmt.Sprintf("%s at %d×%d", where, size[0], size[1])
		screen := strings.Split(panetest.Plain(d.M.render()), "\n")
		lay := d.M.layout()
		l := d.M.lesson
		if l.Lesson() != nil && l.OnStep() {
			var named []string // as the header says them, in the screen's language
			for _, c := range l.Named() {
				named = append(named, d.M.st.Words.Column(c))
			}
			out = append(out, clippedColumns(screen, lay, named, at)...)
		}
		if l.Lesson() != nil && l.NamesGuarantees() {
			gr := lay.guarantees
			if gr.h <= 0 {
				out = append(out, at+": the step names the Guarantees pane; none on screen")
			}
			for y := gr.y; y < gr.y+gr.h && y < len(screen); y++ {
				if line := strings.TrimSpace(ansi.Cut(screen[y], gr.x, gr.x+gr.w)); strings.HasSuffix(line, "…") && y > gr.y {
					out = append(out, at+": a Guarantees line cut: "+line)
				}
			}
		}
		lr := lay.lesson
		var pane []string
		for y := lr.y; y < lr.y+lr.h && y < len(screen); y++ {
			pane = append(pane, strings.TrimRight(ansi.Cut(screen[y], lr.x, lr.x+lr.w), " "))
		}
		for i, line := range pane {
			s := strings.TrimSpace(busyWords.ReplaceAllString(line, ""))
			switch {
			case (strings.HasPrefix(s, "✓ ") || strings.HasPrefix(s, "✗ ")) && strings.Contains(s, "…"):
				out = append(out, at+": check cut: "+s)
			case strings.Contains(s, "↕") && strings.Contains(s, "…"):
				out = append(out, at+": a line cut by the scroll mark: "+s)
			}
			if i+1 < len(pane) && (strings.HasSuffix(s, " -") || strings.HasSuffix(s, "--") || strings.HasSuffix(s, "outboxlab -")) &&
				strings.HasPrefix(strings.TrimSpace(pane[i+1]), "-") {
				out = append(out, at+": command broken at a hyphen: "+s+" / "+strings.TrimSpace(pane[i+1]))
			}
		}
	}
	d.Handle(tea.WindowSizeMsg{Width: 120, Height: 40})
	d.settle()
	return out
}

// clippedColumns checks the tables pane on screen for the named columns of
// outbox_messages: each header drawn whole, no cell under it cut.
func clippedColumns(lines []string, lay regions, named []string, at string) []string {
	if len(named) == 0 {
		return nil
	}
	tr := lay.tables
	if tr.h <= 0 {
		return []string{fmt.Sprintf("%s: the step names %s; no table on screen", at, strings.Join(named, ", "))}
	}
	var rows []string
	for y := tr.y; y < tr.y+tr.h && y < len(lines); y++ {
		rows = append(rows, ansi.Cut(lines[y], tr.x, tr.x+tr.w))
	}
	if len(rows) < 2 || !strings.Contains(rows[0], "[outbox]") {
		return nil // another table on screen, chosen by the learner
	}
	header := rows[1]
	var out []string
	for _, c := range named {
		i := wholeWord(header, c)
		if i < 0 {
			out = append(out, fmt.Sprintf("%s: column %q cut or left out: %s", at, c, strings.TrimSpace(header)))
			continue
		}
		// The column runs to where the next header begins (the line's
		// end for the last).
		col := ansi.StringWidth(header[:i])
		end := ansi.StringWidth(header)
		rest := header[i+len(c):]
		if j := strings.IndexFunc(rest, func(r rune) bool { return r != ' ' }); j >= 0 {
			end = col + ansi.StringWidth(c) + ansi.StringWidth(rest[:j])
		}
		for _, r := range rows[2:] {
			if cell := ansi.Cut(r, col, end); strings.Contains(cell, "…") {
				out = append(out, fmt.Sprintf("%s: a cell of %q cut: %s", at, c, strings.TrimSpace(cell)))
				break
			}
		}
	}
	return out
}

// wholeWord is where name stands alone in line (spaces or the line's ends
// around it), or -1.
func wholeWord(line, name string) int {
	re := regexp.MustCompile(`(^|\s)` + regexp.QuoteMeta(name) + `(\s|$)`)
	loc := re.FindStringIndex(line)
	if loc == nil {
		return -1
	}
	if loc[0] > 0 || strings.HasPrefix(line[loc[0]:], " ") {
		return loc[0] + 1
	}
	return loc[0]
}

// report logs how many texts were found cut and fails the test on each.
func (c *clipped) report(t *testing.T) {
	t.Helper()
	t.Logf("clipped texts: %d", len(c.found))
	for _, s := range c.found {
		t.Errorf("clipped: %s", s)
	}
}
