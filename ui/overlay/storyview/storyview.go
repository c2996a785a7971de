package storyview

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/screen"
	"github.com/outboxlab/outboxlab/story"
)

// keyMap is the story's keys: scrolling, the trace instead of the diagram,
// and closing.
type keyMap struct {
	screen.ScrollKeys
	Trace, Close key.Binding
}

func defaultKeyMap(w *catalog.Printer) keyMap {
	scroll := screen.NewScrollKeys(w)
	// Space pages too: the story is read still, and space is what a
	// reader presses for the next page.
	scroll.PageDown.SetKeys("pgdown", "space")
	return keyMap{
		ScrollKeys: scroll,
		Trace:      key.NewBinding(key.WithKeys("t"), key.WithHelp("t", w.T("trace / sequence"))),
		Close:      key.NewBinding(key.WithKeys("esc", "o", "q"), key.WithHelp("esc", w.T("close"))),
	}
}

func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageDown, k.Trace, k.Close}
}
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Trace, k.Close}}
}

// CloseMsg closes the story.
type CloseMsg struct{}

// Pane draws one message's life as a sequence diagram (story.RenderIn):
// each actor a column, each statement and delivery an arrow; it scrolls.
type Pane struct {
	st    *screen.Styles
	keys  keyMap
	w, h  int
	story story.Story
	trace []string // the message's spans, drawn instead of the diagram with t
	spans bool
	lines []string
	top   int
}

// New is the story s, with its trace as a tree of spans (none: not traced,
// and t does nothing).
func New(st *screen.Styles, s story.Story, trace []string) Pane {
	p := Pane{st: st, keys: defaultKeyMap(st.Words), story: s, trace: trace}
	p.keys.Trace.SetEnabled(len(trace) > 0)
	return p
}

// SetSize draws the diagram again at the new width, in the learner's
// language.
func (p *Pane) SetSize(w, h int) {
	p.w, p.h = w, h
	p.lines = strings.Split(strings.TrimRight(story.RenderIn(p.story, max(40, w-2), p.st.Words), "\n"), "\n")
	if p.spans {
		p.lines = p.trace
	}
	p.top = min(p.top, p.maxTop())
}

// ShortHelp is the story's keys, the only ones that work while it is open.
func (p Pane) ShortHelp() []key.Binding { return p.keys.ShortHelp() }

// FullHelp is every key of the story.
func (p Pane) FullHelp() [][]key.Binding { return p.keys.FullHelp() }

func (p Pane) maxTop() int { return max(0, len(p.lines)-(p.h-1)) }

// Scrolled is where the story is scrolled: its first line on screen, the
// last first line paging reaches, and how many lines it has.
func (p Pane) Scrolled() (top, maxTop, lines int) { return p.top, p.maxTop(), len(p.lines) }

// Update scrolls, switches to the trace and back, or closes (CloseMsg).
func (p Pane) Update(msg tea.Msg) (Pane, tea.Cmd) {
	if msg, ok := msg.(tea.KeyPressMsg); ok {
		page := max(1, p.h-2)
		switch {
		case key.Matches(msg, p.keys.Close):
			return p, func() tea.Msg { return CloseMsg{} }
		case key.Matches(msg, p.keys.Trace):
			p.spans, p.top = !p.spans, 0
			p.SetSize(p.w, p.h)
		case key.Matches(msg, p.keys.Up):
			p.top = max(0, p.top-1)
		case key.Matches(msg, p.keys.Down):
			p.top = min(p.maxTop(), p.top+1)
		case key.Matches(msg, p.keys.PageUp):
			p.top = max(0, p.top-page)
		case key.Matches(msg, p.keys.PageDown):
			p.top = min(p.maxTop(), p.top+page)
		}
	}
	return p, nil
}

// View draws the lines in view under a title that says which message.
func (p Pane) View() string {
	w := p.st.Words
	detail := w.T("message %d of %d · in %s", p.story.Index, p.story.Total, p.story.Pipeline)
	if p.maxTop() > 0 {
		detail += " · " + w.T("lines %d–%d of %d", p.top+1, min(len(p.lines), p.top+p.h-1), len(p.lines))
	}
	title := w.T("Story of %s", story.Short(p.story.Message))
	if p.spans {
		title = w.T("Trace of %s", story.Short(p.story.Message))
	}
	lines := []string{screen.PaneTitle(p.st, true, title, detail, p.w)}
	end := min(len(p.lines), p.top+p.h-1)
	for _, l := range p.lines[p.top:end] {
		lines = append(lines, " "+l)
	}
	return screen.Block(strings.Join(screen.FitLines(lines, p.w, p.h), "\n"), p.w, p.h)
}
