package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/screen"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/story"
)

type storyKeys struct {
	Up, Down, PageUp, PageDown, Trace, Close key.Binding
}

func defaultStoryKeys(w *catalog.Printer) storyKeys {
	return storyKeys{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", w.T("scroll up"))),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", w.T("scroll down"))),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", w.T("page up"))),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "space"), key.WithHelp("pgdn", w.T("page down"))),
		Trace:    key.NewBinding(key.WithKeys("t"), key.WithHelp("t", w.T("trace / sequence"))),
		Close:    key.NewBinding(key.WithKeys("esc", "o", "q"), key.WithHelp("esc", w.T("close"))),
	}
}

func (k storyKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageDown, k.Trace, k.Close}
}
func (k storyKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Trace, k.Close}}
}

// storyMsg is a message's story, built from the simulation's timeline.
type storyMsg struct {
	story story.Story
	trace []string // the message's trace as a tree of spans (none: not traced)
	err   error
}

// storyCmd builds the story of the message entry names (its first one), in
// that entry's pipeline, from the whole timeline.
func storyCmd(s *sim.Sim, tr *tracing, w *catalog.Printer, entry int) tea.Cmd {
	return func() tea.Msg {
		tl := s.Timeline(0)
		if entry < 0 || entry >= len(tl) || len(tl[entry].MessageIDs) == 0 {
			return storyMsg{err: errNoMessage}
		}
		e := tl[entry]
		st, err := story.Build(tl, e.Pipeline, e.MessageIDs[0])
		return storyMsg{story: st, trace: tr.traceLines(st.Message, w), err: err}
	}
}

var errNoMessage = storyError("this entry is about no message: choose one that names an event id")

type storyError string

func (e storyError) Error() string { return string(e) }

// closeStoryMsg closes the story.
type closeStoryMsg struct{}

// storyPane draws one message's life as a sequence diagram (story.RenderIn):
// each actor a column, each statement and delivery an arrow; it scrolls.
type storyPane struct {
	st    *Styles
	keys  storyKeys
	w, h  int
	story story.Story
	trace []string // the message's spans, drawn instead of the diagram with t
	spans bool
	lines []string
	top   int
}

func newStoryPane(st *Styles, s story.Story, trace []string) storyPane {
	p := storyPane{st: st, keys: defaultStoryKeys(st.Words), story: s, trace: trace}
	p.keys.Trace.SetEnabled(len(trace) > 0)
	return p
}

// SetSize draws the diagram again at the new width, in the learner's
// language.
func (p *storyPane) SetSize(w, h int) {
	p.w, p.h = w, h
	p.lines = strings.Split(strings.TrimRight(story.RenderIn(p.story, max(40, w-2), p.st.Words), "\n"), "\n")
	if p.spans {
		p.lines = p.trace
	}
	p.top = min(p.top, p.maxTop())
}

func (p storyPane) ShortHelp() []key.Binding  { return p.keys.ShortHelp() }
func (p storyPane) FullHelp() [][]key.Binding { return p.keys.FullHelp() }

func (p storyPane) maxTop() int { return max(0, len(p.lines)-(p.h-1)) }

func (p storyPane) Update(msg tea.Msg) (storyPane, tea.Cmd) {
	if msg, ok := msg.(tea.KeyPressMsg); ok {
		page := max(1, p.h-2)
		switch {
		case key.Matches(msg, p.keys.Close):
			return p, func() tea.Msg { return closeStoryMsg{} }
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

func (p storyPane) View() string {
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
