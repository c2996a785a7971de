package ui

// play.go is `outboxlab play`: a scene's script or a lesson's solutions
// played by themselves, with captions paced for reading.

import (
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/outboxlab/outboxlab/sim"
)

// playState is play mode's own state: the caption on screen, the tagged
// tick that paces it, and how it ends.
type playState struct {
	caption  string
	delay    time.Duration
	tag      int
	paused   bool
	ending   bool
	whyShown bool  // play captioned the passed step's why
	err      error // play could not finish (a solution that did not pass)
}

func (m *Model) schedulePlay() tea.Cmd {
	if !m.opts.Play {
		return nil
	}
	m.play.tag++
	tag := m.play.tag
	return tea.Tick(m.play.delay, func(time.Time) tea.Msg { return playTickMsg{tag} })
}

func (m Model) readTime(text string) time.Duration {
	words := len(strings.Fields(text))
	d := time.Second + time.Duration(words)*300*time.Millisecond
	speed := m.opts.Speed
	if speed <= 0 {
		speed = 1
	}
	return time.Duration(float64(d) / speed)
}

func (m *Model) captionFor(a action, entries []sim.Entry) {
	if !m.opts.Play {
		return
	}
	var text []string
	for _, e := range entries {
		switch {
		case e.Explain == "":
		case strings.HasPrefix(e.Explain, e.Actor+" "):
			text = append(text, e.Explain)
		default:
			text = append(text, e.Actor+": "+e.Explain)
		}
	}
	switch {
	case len(text) > 0:
		m.play.caption = strings.Join(text, " · ")
		m.play.delay = m.readTime(m.play.caption)
	case a.kind == actDo:
		m.play.caption = "→ " + a.step.String()
		m.play.delay = m.readTime(m.play.caption)
	default:
		m.play.delay = m.readTime("")
	}
}

func (m Model) playNext() (tea.Model, tea.Cmd) {
	if m.sim == nil || m.busy || len(m.queue) > 0 {
		return m, nil // what runs now schedules the next move when it returns
	}
	if m.play.ending {
		return m, tea.Quit
	}
	l := &m.lesson
	if l.lesson == nil {
		if m.pos.Script < len(m.scene.Steps) || m.pos.Run != "" {
			return m, m.enqueue(action{kind: actUnit, user: true})
		}
		m.play.caption = "✓ " + m.scene.TitleIn(m.opts.Lang)
		return m, m.end()
	}
	switch l.stage {
	case stageStep:
		if m.pos.Script < len(l.current().Solution) || m.pos.Run != "" {
			return m, m.enqueue(action{kind: actUnit, user: true})
		}
		m.play.err = fmt.Errorf("play %s: step %d (%s): the solution did not pass the checks", l.lesson.Name, l.step+1, l.current().Title)
		if m.err != nil {
			m.play.err = errors.Join(m.play.err, m.err)
		}
		m.play.caption = "✗ " + m.play.err.Error()
		return m, m.end()
	case stagePassed:
		if m.pos.Script < len(l.current().Solution) || m.pos.Run != "" {
			// Play the solution to its end, as lessons.Step.Solve does.
			return m, m.enqueue(action{kind: actUnit, user: true})
		}
		if !m.play.whyShown {
			lb := l.lang()
			m.play.whyShown = true
			m.play.caption = fmt.Sprintf("✓ %s. %s: %s", lb.Passed, lb.Why, oneLine(l.current().Why))
			m.play.delay = m.readTime(m.play.caption)
			return m, tea.Batch(m.resize(), m.schedulePlay())
		}
		m.play.whyShown = false
		cmd := m.lessonNext()
		if l.stage == stageQuiz {
			m.play.delay = m.readTime(m.questionText())
			return m, tea.Batch(cmd, m.schedulePlay())
		}
		return m, cmd // the step's checks (or its fresh simulator) schedule the next move
	case stageQuiz:
		if !l.answered {
			l.choose(l.lesson.Quiz[l.question].Answer())
			l.answer()
			c := l.lesson.Quiz[l.question].Choices[l.choice]
			m.play.caption = "✓ " + oneLine(c.Text) + " " + oneLine(c.Because)
			m.play.delay = m.readTime(m.play.caption)
			return m, tea.Batch(m.resize(), m.schedulePlay())
		}
		if l.nextQuestion() {
			m.play.caption = m.questionText()
			m.play.delay = m.readTime(m.play.caption)
			return m, tea.Batch(m.resize(), m.schedulePlay())
		}
		m.play.caption = "✓ " + labelsFor(l.lesson.Lang).Done + ": " + l.lesson.Title
		return m, tea.Batch(m.resize(), m.end())
	}
	return m, m.end()
}

func (m Model) questionText() string {
	q := m.lesson.lesson.Quiz[m.lesson.question]
	parts := []string{oneLine(q.Text)}
	for i, c := range q.Choices {
		parts = append(parts, fmt.Sprintf("%d. %s", i+1, oneLine(c.Text)))
	}
	return strings.Join(parts, "  ")
}

func (m *Model) end() tea.Cmd {
	m.play.ending = true
	m.play.delay = m.readTime(m.play.caption) + m.readTime("")
	return tea.Batch(m.resize(), m.schedulePlay())
}

func (m Model) playKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch {
	case msg.String() == "q":
		return m, tea.Quit
	case msg.String() == "space":
		m.play.paused = !m.play.paused
		if m.play.paused {
			m.notice = m.st.Words.T("paused: space resumes")
			m.updateKeys()
			return m, nil
		}
		m.notice = ""
		m.play.delay = 0
		m.updateKeys()
		return m, m.schedulePlay()
	}
	return m, nil
}

func (m Model) captionLines(w int) []string {
	if m.play.caption == "" {
		return []string{""}
	}
	return strings.Split(lipgloss.Wrap(unmark(m.play.caption), max(10, w-2), " "), "\n")
}

// unmark drops the Markdown marks a lesson's text carries (`code`,
// **bold**): a caption is plain text, and raw backticks read as noise.
var unmark = strings.NewReplacer("`", "", "**", "").Replace

func (m Model) captionView(w, h int) string {
	lines := m.captionLines(w)
	if len(lines) > h {
		lines = lines[:h]
		lines[h-1] = fitLine(lines[h-1]+"…", w-2)
	}
	out := make([]string, h)
	for i := range out {
		t := ""
		if i < len(lines) {
			t = lines[i]
		}
		out[i] = m.st.Lesson.Caption.Render(fitLine(" "+t, w))
	}
	return strings.Join(out, "\n")
}
