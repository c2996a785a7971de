package workshop

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/outboxlab/outboxlab/ui"
)

// openLessonMsg is the instructor sending a learner to a lesson.
type openLessonMsg struct{ name string }

// pauseMsg is the instructor pausing the room (text) or resuming it ("").
type pauseMsg struct{ text string }

// learnerModel is a learner's program: the simulator (the same root model
// as `outboxlab`), with what the instructor sends on top of it, reporting
// the learner's place to the room after every message.
type learnerModel struct {
	inner  ui.Model
	room   *Room
	l      *learner
	w      words
	paused string
	width  int
	height int
}

func (m learnerModel) Init() tea.Cmd { return m.inner.Init() }

func (m learnerModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	input := false
	switch msg := msg.(type) {
	case pauseMsg:
		m.paused = msg.text
		return m, nil
	case openLessonMsg:
		var cmd tea.Cmd
		m.inner, cmd = m.inner.OpenLesson(msg.name)
		m.room.report(m.l, m.inner.LearnerState(), false)
		return m, cmd
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyPressMsg:
		input = true
		if m.paused != "" && msg.String() != "ctrl+c" {
			// The room is paused: keys wait for the instructor (ctrl+c
			// still leaves).
			m.room.report(m.l, m.inner.LearnerState(), true)
			return m, nil
		}
	}
	next, cmd := m.inner.Update(msg)
	m.inner = next.(ui.Model)
	m.room.report(m.l, m.inner.LearnerState(), input)
	return m, cmd
}

func (m learnerModel) View() tea.View {
	if m.paused == "" {
		return m.inner.View()
	}
	title := lipgloss.NewStyle().Bold(true).Render(m.w.paused)
	body := lipgloss.NewStyle().Width(min(60, max(20, m.width-8))).Render(m.paused)
	box := lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(1, 3).Render(strings.Join([]string{title, "", body, "", m.w.pausedWait}, "\n"))
	v := tea.NewView(lipgloss.Place(max(m.width, 1), max(m.height, 1), lipgloss.Center, lipgloss.Center, box))
	v.AltScreen = true
	return v
}
