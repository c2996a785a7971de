package ui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/story"
)

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
