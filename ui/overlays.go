package ui

import (
	"slices"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
)

// overlay is a pane opened over the page's body: it takes the keys while
// it is on top, and closes with a message of its own (picker.CloseMsg…).
type overlay int

const (
	overlayPicker  overlay = iota + 1 // the / picker of scenes and lessons, over the whole body
	overlayChooser                    // a fault's dialog, centred over the body
	overlayStory                      // one message's life, over the whole body
	overlayChaos                      // a chaos run and its table, over the whole body
)

// overlays is the stack of overlays open, the last on top. The order they
// were opened in is the one priority: the top one gets the keys first and
// is drawn last, and closing it gives the keys back to the one beneath.
type overlays []overlay

// push opens o on top (an overlay open already moves to the top). The
// stack is copied, never changed in place: Model is a value, and a copy
// of it keeps the overlays it had.
func (s *overlays) push(o overlay) {
	s.pop(o)
	*s = append(slices.Clip(*s), o)
}

// pop closes o wherever it is in the stack (it is the top one when its
// own keys close it).
func (s *overlays) pop(o overlay) {
	if s.has(o) {
		*s = slices.DeleteFunc(slices.Clone(*s), func(x overlay) bool { return x == o })
	}
}

// top is the overlay that takes the keys, 0 with none open.
func (s overlays) top() overlay {
	if len(s) == 0 {
		return 0
	}
	return s[len(s)-1]
}

// has says o is open, on top or beneath another.
func (s overlays) has(o overlay) bool { return slices.Contains(s, o) }

// dialog says o is drawn centred over what is beneath it, not in its place.
func (o overlay) dialog() bool { return o == overlayChooser }

// updateOverlay gives a message to overlay o's pane.
func (m *Model) updateOverlay(o overlay, msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch o {
	case overlayPicker:
		m.picker, cmd = m.picker.Update(msg)
	case overlayChooser:
		m.chooser, cmd = m.chooser.Update(msg)
	case overlayStory:
		m.story, cmd = m.story.Update(msg)
	case overlayChaos:
		m.chaos, cmd = m.chaos.Update(msg)
	}
	return cmd
}

// drawOverlay draws overlay o over body, w×h: a dialog centred over it,
// the others in its place.
func (m Model) drawOverlay(o overlay, body string, w, h int) string {
	switch o {
	case overlayPicker:
		return m.picker.View()
	case overlayChooser:
		return centreOver(body, m.chooser.View(), w, h)
	case overlayStory:
		return m.story.View()
	case overlayChaos:
		return m.chaos.View()
	}
	return body
}

// drawOverlays draws the overlays open, bottom to top, over the body
// (drawn only when no overlay takes its whole place).
func (m Model) drawOverlays(body func() string, w, h int) string {
	from := len(m.overlays)
	for from > 0 && m.overlays[from-1].dialog() {
		from--
	}
	out := ""
	if from == 0 {
		out = body()
	} else {
		from--
	}
	for _, o := range m.overlays[from:] {
		out = m.drawOverlay(o, out, w, h)
	}
	return out
}

// overlayHelp is the help of overlay o's keys; alone says they are the
// only ones shown (the story and the chaos run), not beside the global ones.
func (m Model) overlayHelp(o overlay) (keys help.KeyMap, alone bool) {
	switch o {
	case overlayPicker:
		return m.picker, false
	case overlayChooser:
		return m.chooser, false
	case overlayStory:
		return m.story, true
	case overlayChaos:
		return m.chaos, true
	}
	return nil, false
}
