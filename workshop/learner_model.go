package workshop

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/ui"
)

// openLessonMsg is the instructor sending a learner to a lesson.
type openLessonMsg struct{ name string }

// pauseMsg is the instructor pausing the room (text, or the learner's own
// language's words when standard) or resuming it (neither).
type pauseMsg struct {
	text     string
	standard bool
}

// closingMsg says the room closes at at (zero: it no longer does).
type closingMsg struct{ at time.Time }

// noticeMsg is a line from the room for the learner (the instructor
// answered their hand, looks at their screen).
type noticeMsg struct{ text string }

// noticeGoneMsg takes notice seq off the screen.
type noticeGoneMsg struct{ seq int }

// secondMsg redraws the closing countdown.
type secondMsg struct{}

// noticeFor is how long a notice stays on the learner's screen.
const noticeFor = 10 * time.Second

// learnerModel is a learner's program: the simulator (the same root model
// as `outboxlab`), with what the room says on top of it, reporting the
// learner's place to the room after every message.
type learnerModel struct {
	inner  ui.Model
	room   *Room
	l      *learner
	w      words
	width  int
	height int

	paused   string // the pause's message, "" while the room runs
	isPaused bool
	closeAt  time.Time // when the room closes (zero: it does not)

	notice    string // a line over the simulator's last one, for noticeFor
	noticeSeq int

	raising bool // the learner is typing what goes with their raised hand
	hand    textinput.Model
}

// tell puts text on the learner's screen for a while.
func (m learnerModel) tell(text string) learnerModel {
	if text == "" {
		return m
	}
	m.notice = text
	m.noticeSeq++
	return m
}

// noticeTimer takes the current notice away after noticeFor.
func (m learnerModel) noticeTimer() tea.Cmd {
	if m.notice == "" {
		return nil
	}
	seq := m.noticeSeq
	return tea.Tick(noticeFor, func(time.Time) tea.Msg { return noticeGoneMsg{seq} })
}

func (m learnerModel) Init() tea.Cmd {
	cmds := []tea.Cmd{m.inner.Init(), m.noticeTimer()}
	if !m.closeAt.IsZero() {
		cmds = append(cmds, second())
	}
	return tea.Batch(cmds...)
}

func second() tea.Cmd { return tea.Tick(time.Second, func(time.Time) tea.Msg { return secondMsg{} }) }

func (m learnerModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	input := false
	switch msg := msg.(type) {
	case pauseMsg:
		m.paused, m.isPaused = msg.text, msg.text != "" || msg.standard
		return m, nil
	case closingMsg:
		m.closeAt = msg.at
		if msg.at.IsZero() {
			return m, nil
		}
		return m, second()
	case secondMsg:
		if m.closeAt.IsZero() {
			return m, nil
		}
		return m, second()
	case noticeMsg:
		m = m.tell(msg.text)
		return m, m.noticeTimer()
	case noticeGoneMsg:
		if msg.seq == m.noticeSeq {
			m.notice = ""
		}
		return m, nil
	case openLessonMsg:
		var cmd tea.Cmd
		m.inner, cmd = m.inner.OpenLesson(msg.name)
		m.room.report(m.l, m.inner.LearnerState(), false)
		m = m.tell(m.room.movedWords(m.w, msg.name))
		return m, tea.Batch(cmd, m.noticeTimer())
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.PasteMsg:
		if m.raising {
			// What is pasted goes with the hand, not to the simulator.
			var cmd tea.Cmd
			m.hand, cmd = m.hand.Update(msg)
			return m, cmd
		}
	case tea.KeyPressMsg:
		input = true
		if m.raising {
			return m.handKey(msg)
		}
		if m.isPaused && msg.String() != "ctrl+c" {
			// The room is paused: keys wait for the instructor (ctrl+c
			// still leaves).
			m.room.report(m.l, m.inner.LearnerState(), true)
			return m, nil
		}
		if msg.String() == "!" {
			m.raising = true
			m.hand = textinput.New()
			m.hand.Placeholder = m.w.handAsk
			m.hand.SetWidth(max(10, m.width-4))
			return m, m.hand.Focus()
		}
	}
	next, cmd := m.inner.Update(msg)
	m.inner = next.(ui.Model)
	m.room.report(m.l, m.inner.LearnerState(), input)
	return m, cmd
}

// handKey is a key while the learner types what goes with their hand:
// enter raises it, esc leaves it down.
func (m learnerModel) handKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch k.String() {
	case "esc":
		m.raising = false
		return m, nil
	case "enter":
		m.raising = false
		m.room.RaiseHand(m.l, strings.TrimSpace(m.hand.Value()))
		m = m.tell(m.w.handUp)
		return m, m.noticeTimer()
	}
	var cmd tea.Cmd
	m.hand, cmd = m.hand.Update(k)
	return m, cmd
}

func (m learnerModel) View() tea.View {
	v := m.inner.View()
	v.WindowTitle = "outboxlab · " + m.l.id
	switch {
	case m.isPaused:
		v.SetContent(m.box(m.w.paused, m.paused, m.w.pausedWait))
	case !m.closeAt.IsZero():
		left := max(0, int(time.Until(m.closeAt).Round(time.Second).Seconds()))
		v.SetContent(m.box(fmt.Sprintf(m.w.closingIn, left), "", m.w.closingWhat))
	default:
		v.SetContent(m.overlay(v.Content))
	}
	m.room.drawn(m.l, v.Content)
	return v
}

// box is a message over the whole screen, at most 60 columns of text and
// never wider than the terminal.
func (m learnerModel) box(title, body, foot string) string {
	inner := min(60, max(16, m.width-10))
	wrap := lipgloss.NewStyle().Width(inner)
	parts := []string{wrap.Bold(true).Render(title)}
	if body != "" {
		parts = append(parts, "", wrap.Render(body))
	}
	parts = append(parts, "", wrap.Render(foot))
	box := lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(1, 3).Render(strings.Join(parts, "\n"))
	return lipgloss.Place(max(m.width, 1), max(m.height, 1), lipgloss.Center, lipgloss.Center, box)
}

// overlay puts what the room says over the simulator's screen: the hand's
// prompt or a notice on its last line, and while the instructor looks,
// a mark at the end of its first.
func (m learnerModel) overlay(content string) string {
	bottom := ""
	switch {
	case m.raising:
		bottom = m.w.handPrompt + " " + m.hand.View()
	case m.notice != "":
		bottom = noticeStyle.Render(" " + m.notice + " ")
	}
	watched := m.room.isWatched(m.l)
	if bottom == "" && !watched {
		return content
	}
	lines := strings.Split(content, "\n")
	w := m.width
	if w <= 0 {
		w = 80
	}
	if bottom != "" && len(lines) > 0 {
		lines[len(lines)-1] = ansi.Truncate(bottom, w, "")
	}
	if watched && len(lines) > 0 {
		mark := noticeStyle.Render(" " + m.w.watched + " ")
		room := w - lipgloss.Width(mark)
		if room > 0 {
			first := ansi.Truncate(lines[0], room, "")
			lines[0] = first + strings.Repeat(" ", max(0, room-lipgloss.Width(first))) + mark
		}
	}
	return strings.Join(lines, "\n")
}

var noticeStyle = lipgloss.NewStyle().Reverse(true).Bold(true)
