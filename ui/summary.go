package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/lessons"
)

// summaryOf is what play leaves on the normal screen when it has played
// to its end, so a scrollback and a recording end on the result: what was
// played, the last caption, the oracle's guarantees and figures as the
// guarantees pane shows them, and for a lesson its quiz. One screen: the
// lines fit w, the width the program drew at. "" unless play got there
// (a failure is said on the standard error).
func (p *playPage) summaryOf(c pageCtx, w int) string {
	if !p.play.over {
		return ""
	}
	name, title := "", ""
	if p.lesson != nil {
		l := c.panes.lesson.Lesson()
		name, title = l.Name, l.Title
	} else {
		sc := c.run.scene()
		name, title = sc.Name, sc.TitleIn(c.opts.Lang)
	}
	lines := []string{ansi.Truncate(c.st.Figures.Heading.Render("outboxlab play "+name)+" · "+title, w, "…")}
	for _, l := range p.captionLines(w) {
		lines = append(lines, " "+l)
	}
	lines = append(lines, c.panes.guarantees.CompactLines(w)...)
	if l := &c.panes.lesson; p.lesson != nil && l.Place() == lessons.PlaceDone {
		lb := l.Labels()
		lines = append(lines, " "+lb.Done+" ✓ "+fmt.Sprintf(lb.Right, l.Right(), len(l.Lesson().Quiz)))
	}
	return strings.Join(lines, "\n") + "\n"
}
