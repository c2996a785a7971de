package workshop

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// instructorMode is what the instructor's screen is asking.
type instructorMode int

const (
	modeTable  instructorMode = iota
	modePicker                // a lesson to send to
	modePause                 // the pause message
)

// instructorModel is the instructor's screen: every learner's line, and the
// keys that send learners to a lesson and pause the room.
type instructorModel struct {
	room          *Room
	w             words
	cancel        context.CancelFunc
	sshAddr, http string
	views         []LearnerView
	sel           int
	mode          instructorMode
	pick          int
	pickAll       bool
	input         textinput.Model
	notice        string
	width, height int
}

type tickMsg struct{}
type changedMsg struct{}

func (m instructorModel) tick() tea.Cmd {
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return tickMsg{} })
}

func (m instructorModel) waitChanged() tea.Cmd {
	ch := m.room.changed
	return func() tea.Msg { <-ch; return changedMsg{} }
}

func (m instructorModel) Init() tea.Cmd { return tea.Batch(m.tick(), m.waitChanged()) }

func (m instructorModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, nil
	case tickMsg:
		m.views = m.room.Learners()
		return m, m.tick()
	case changedMsg:
		m.views = m.room.Learners()
		return m, m.waitChanged()
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	if m.mode == modePause {
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return m, cmd
	}
	return m, nil
}

func (m instructorModel) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if k.String() == "ctrl+c" {
		m.cancel()
		return m, tea.Quit
	}
	switch m.mode {
	case modePicker:
		switch k.String() {
		case "up", "k":
			m.pick = max(0, m.pick-1)
		case "down", "j":
			m.pick = min(len(m.room.course)-1, m.pick+1)
		case "esc":
			m.mode = modeTable
		case "enter":
			name := m.room.course[m.pick].Name
			var ids []string
			who := m.w.everyone
			if !m.pickAll && m.sel < len(m.views) {
				ids, who = []string{m.views[m.sel].ID}, m.views[m.sel].ID
			}
			if err := m.room.SendLesson(name, ids...); err != nil {
				m.notice = err.Error()
			} else {
				m.notice = fmt.Sprintf("→ %s: %s", who, name)
			}
			m.mode = modeTable
		}
		return m, nil
	case modePause:
		switch k.String() {
		case "esc":
			m.mode = modeTable
			return m, nil
		case "enter":
			text := strings.TrimSpace(m.input.Value())
			if text == "" {
				text = m.w.paused
			}
			m.room.Pause(text)
			m.mode = modeTable
			return m, nil
		}
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(k)
		return m, cmd
	}
	switch k.String() {
	case "q":
		m.cancel()
		return m, tea.Quit
	case "up", "k":
		m.sel = max(0, m.sel-1)
	case "down", "j":
		m.sel = min(max(0, len(m.views)-1), m.sel+1)
	case "l", "L":
		if k.String() == "l" && len(m.views) == 0 {
			return m, nil
		}
		m.mode, m.pickAll, m.notice = modePicker, k.String() == "L", ""
	case "p":
		if m.room.Paused() != "" {
			m.room.Pause("")
			return m, nil
		}
		m.mode = modePause
		m.input = textinput.New()
		m.input.Placeholder = m.w.paused
		m.input.SetWidth(50)
		return m, m.input.Focus()
	}
	return m, nil
}

var (
	bold   = lipgloss.NewStyle().Bold(true)
	faint  = lipgloss.NewStyle().Faint(true)
	warn   = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("9"))
	chosen = lipgloss.NewStyle().Reverse(true)
)

func (m instructorModel) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "outboxlab workshop"
	return v
}

func (m instructorModel) render() string {
	host, port, _ := net.SplitHostPort(m.sshAddr)
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "HOST"
	}
	connected := 0
	for _, v := range m.views {
		if v.Connected {
			connected++
		}
	}
	lines := []string{
		bold.Render(m.w.title) + "  " + fmt.Sprintf(m.w.access, port, host, m.room.cfg.access(m.w)),
		fmt.Sprintf(m.w.learners, connected, m.room.cfg.MaxLearners),
	}
	if m.http != "" {
		lines[1] += " · " + fmt.Sprintf(m.w.http, m.http)
	}
	if p := m.room.Paused(); p != "" {
		lines = append(lines, warn.Render(fmt.Sprintf(m.w.pausedNow, p)))
	}
	lines = append(lines, "")
	switch m.mode {
	case modePicker:
		who := m.w.everyone
		if !m.pickAll && m.sel < len(m.views) {
			who = m.views[m.sel].ID
		}
		lines = append(lines, fmt.Sprintf(m.w.sendTo, who))
		for i, c := range m.room.course {
			line := fmt.Sprintf("  %2d %-14s %s", i+1, c.Name, c.Title)
			if i == m.pick {
				// The mark reads without colours too.
				line = chosen.Render("▸" + line[1:])
			}
			lines = append(lines, line)
		}
		lines = append(lines, "", faint.Render(m.w.keysPicker))
		return strings.Join(lines, "\n")
	case modePause:
		lines = append(lines, m.w.pauseAsk, m.input.View(), "", faint.Render(m.w.keysPause))
		return strings.Join(lines, "\n")
	}
	c := m.w.cols
	lines = append(lines, bold.Render(fmt.Sprintf("%-16s %-14s %-6s %-10s %-7s %-6s %-7s %s", c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7])))
	if len(m.views) == 0 {
		lines = append(lines, faint.Render(m.w.none))
	}
	for i, v := range m.views {
		state := m.w.connected
		switch {
		case !v.Connected:
			state = m.w.disconnected
		case !v.Ready:
			state = m.w.starting // its scene's databases being built
		case v.Stuck:
			state = m.w.stuck
		case v.Idle:
			state = m.w.idle
		}
		step, checks := "-", "-"
		if v.Lesson != "" {
			step = fmt.Sprintf("%d/%d", v.Step, v.Steps)
			if v.Stage == "quiz" || v.Stage == "done" {
				step = v.Stage
			}
			checks = fmt.Sprintf("%d/%d", v.Checks, v.Total)
		}
		line := fmt.Sprintf("%-16s %-14s %-6s %-10s %-7s %-6d %-7d %s", cut(v.ID, 16), cut(v.Lesson, 14), step, round(v.OnStep), checks, v.Hints, v.Passed, state)
		switch {
		case i == m.sel:
			line = chosen.Render(line)
		case v.Stuck:
			line = warn.Render(line)
		case !v.Connected:
			line = faint.Render(line)
		}
		lines = append(lines, line)
	}
	lines = append(lines, "")
	if m.notice != "" {
		lines = append(lines, m.notice)
	}
	lines = append(lines, faint.Render(m.w.keys))
	return strings.Join(lines, "\n")
}

func cut(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// round is a time on a step as the screen shows it: 45s, 3m05s, 1h02m.
func round(d time.Duration) string {
	switch {
	case d <= 0:
		return "-"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// instructorScreen runs the instructor's screen on the terminal until q
// (which stops the room) or ctx ends.
func (r *Room) instructorScreen(ctx context.Context, cancel context.CancelFunc, httpAddr string) error {
	m := instructorModel{room: r, w: wordsFor(r.cfg.Lang), cancel: cancel, sshAddr: r.sshLn.Addr().String(), http: httpAddr, views: r.Learners()}
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithoutSignalHandler())
	go func() { <-ctx.Done(); p.Quit() }()
	_, err := p.Run()
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// logLines writes the room's changes as lines to Out until ctx ends: the
// instructor's screen without a terminal (a container, a service).
func (r *Room) logLines(ctx context.Context, httpAddr string) {
	w := wordsFor(r.cfg.Lang)
	out := r.cfg.Out
	_, port, _ := net.SplitHostPort(r.sshLn.Addr().String())
	fmt.Fprintf(out, "outboxlab workshop: %s · %s\n", fmt.Sprintf(w.access, port, "HOST", r.cfg.access(w)), fmt.Sprintf(w.learners, 0, r.cfg.MaxLearners))
	if httpAddr != "" {
		fmt.Fprintln(out, fmt.Sprintf(w.http, httpAddr))
	}
	last := map[string]string{}
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		for _, v := range r.Learners() {
			state := w.connected
			switch {
			case !v.Connected:
				state = w.disconnected
			case v.Stuck:
				state = w.stuck
			}
			line := fmt.Sprintf("%s: %s", v.ID, state)
			if v.Lesson != "" {
				line += fmt.Sprintf(" · %s %d/%d %s · checks %d/%d · hints %d · passed %d", v.Lesson, v.Step, v.Steps, v.Stage, v.Checks, v.Total, v.Hints, v.Passed)
			}
			if last[v.ID] != line {
				last[v.ID] = line
				fmt.Fprintf(out, "%s %s\n", time.Now().Format("15:04:05"), line)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-r.changed:
		}
	}
}
