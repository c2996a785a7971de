package workshop

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/screen"
)

// instructorMode is what the instructor's screen is asking.
type instructorMode int

const (
	modeTable       instructorMode = iota
	modePicker                     // a lesson to send to
	modePause                      // the pause message
	modeConfirmStop                // stop the room?
	modeConfirmAll                 // send everyone to the lesson picked?
	modeConfirmEnd                 // end the selected learner's session?
	modeWatch                      // the selected learner's screen
	modeSay                        // a line for every learner's screen
)

// closeGrace is how long learners see the room's countdown before their
// sessions end, after the instructor's confirmed q.
const closeGrace = 10 * time.Second

// instructorModel is the instructor's screen: every learner's line, and the
// keys that send learners to a lesson, look at their screen, answer their
// hands, pause and stop the room.
type instructorModel struct {
	room          *Room
	w             words
	st            *screen.Styles // the look every screen shares: Room is this one's
	cancel        context.CancelFunc
	sshAddr, http string
	hostKey       string   // the room's host key, as ssh prints it
	web           string   // the web door's learners' page and the projector's, "" without --web
	addrs         []string // the addresses learners can reach, for the board
	views         []LearnerView
	sel           int
	selID         string // the selected learner: the selection follows them as the list reorders
	mode          instructorMode
	pick          int
	pickAll       bool
	filter        string // typed in the picker: a lesson's number or part of its name
	input         textinput.Model
	notice        string
	closeAt       time.Time // the room closes then (zero: it does not)
	watching      string    // the learner looked at in modeWatch
	width, height int
}

type tickMsg struct{}
type changedMsg struct{}
type watchTickMsg struct{}

func (m instructorModel) tick() tea.Cmd {
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return tickMsg{} })
}

// watchTick redraws a learner's screen often enough to follow their keys.
func (m instructorModel) watchTick() tea.Cmd {
	return tea.Tick(100*time.Millisecond, func(time.Time) tea.Msg { return watchTickMsg{} })
}

func (m instructorModel) waitChanged() tea.Cmd {
	ch := m.room.changed
	return func() tea.Msg { <-ch; return changedMsg{} }
}

func (m instructorModel) Init() tea.Cmd { return tea.Batch(m.tick(), m.waitChanged()) }

// refresh takes the room's learners now and keeps the same learner
// selected wherever the order moved them.
func (m instructorModel) refresh() instructorModel {
	m.views = m.room.Learners()
	for i, v := range m.views {
		if v.ID == m.selID {
			m.sel = i
			return m
		}
	}
	m.sel = min(m.sel, max(0, len(m.views)-1))
	if m.sel < len(m.views) {
		m.selID = m.views[m.sel].ID
	}
	return m
}

// selected is the selected learner's view, if there is one.
func (m instructorModel) selected() (LearnerView, bool) {
	if m.sel < len(m.views) {
		return m.views[m.sel], true
	}
	return LearnerView{}, false
}

func (m instructorModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, nil
	case tickMsg:
		m = m.refresh()
		if !m.closeAt.IsZero() && !time.Now().Before(m.closeAt) {
			m.cancel()
			return m, tea.Quit
		}
		return m, m.tick()
	case changedMsg:
		m = m.refresh()
		return m, m.waitChanged()
	case watchTickMsg:
		if m.mode != modeWatch {
			return m, nil
		}
		return m, m.watchTick()
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	if m.mode == modePause || m.mode == modeSay {
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return m, cmd
	}
	return m, nil
}

func (m instructorModel) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	keys := m.keys()
	if key.Matches(k, keys.Quit) {
		m.cancel()
		return m, tea.Quit
	}
	switch m.mode {
	case modePicker:
		return m.pickerKey(k)
	case modeSay:
		switch {
		case key.Matches(k, keys.SayCancel):
			m.mode = modeTable
			return m, nil
		case key.Matches(k, keys.SayDone):
			if text := strings.TrimSpace(m.input.Value()); text != "" {
				m.room.Say(text)
				m.notice = "» " + text
			}
			m.mode = modeTable
			return m, nil
		}
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(k)
		return m, cmd
	case modePause:
		switch {
		case key.Matches(k, keys.PauseCancel):
			m.mode = modeTable
			return m, nil
		case key.Matches(k, keys.PauseDone):
			if text := strings.TrimSpace(m.input.Value()); text != "" {
				m.room.Pause(text)
			} else {
				m.room.PauseStandard()
			}
			m.mode = modeTable
			return m, nil
		}
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(k)
		return m, cmd
	case modeConfirmStop:
		switch {
		case key.Matches(k, keys.StopYes):
			m.mode = modeTable
			if m.connected() == 0 {
				m.cancel()
				return m, tea.Quit
			}
			m.closeAt = time.Now().Add(closeGrace)
			m.room.CloseIn(closeGrace)
		case key.Matches(k, keys.StopNow):
			m.cancel()
			return m, tea.Quit
		case key.Matches(k, keys.StopNo):
			m.mode = modeTable
		}
		return m, nil
	case modeConfirmAll:
		return m.confirm(k, func(m *instructorModel) { m.send(nil, m.w.everyone) }), nil
	case modeConfirmEnd:
		return m.confirm(k, func(m *instructorModel) {
			if v, ok := m.selected(); ok {
				if err := m.room.End(v.ID); err != nil {
					m.notice = err.Error()
				} else {
					m.notice = fmt.Sprintf(m.w.ended, v.ID)
				}
			}
		}), nil
	case modeWatch:
		switch {
		case key.Matches(k, keys.Back):
			m.room.Watch(m.watching, false)
			m.mode, m.watching = modeTable, ""
		case key.Matches(k, keys.AnswerHand):
			m.room.AnswerHand(m.watching)
		}
		return m, nil
	}
	if !m.closeAt.IsZero() {
		switch {
		case key.Matches(k, keys.CloseNow):
			m.cancel()
			return m, tea.Quit
		case key.Matches(k, keys.KeepOpen):
			m.closeAt = time.Time{}
			m.room.CloseIn(0)
			return m, nil
		}
	}
	v, has := m.selected()
	switch {
	case key.Matches(k, keys.Stop):
		m.mode = modeConfirmStop
	case key.Matches(k, keys.Up):
		m.sel = max(0, m.sel-1)
	case key.Matches(k, keys.Down):
		m.sel = min(max(0, len(m.views)-1), m.sel+1)
	case key.Matches(k, keys.Top):
		m.sel = 0
	case key.Matches(k, keys.Bottom):
		m.sel = max(0, len(m.views)-1)
	case key.Matches(k, keys.PageUp):
		m.sel = max(0, m.sel-m.rows())
	case key.Matches(k, keys.PageDown):
		m.sel = min(max(0, len(m.views)-1), m.sel+m.rows())
	case key.Matches(k, keys.Lesson, keys.Everyone):
		if key.Matches(k, keys.Lesson) && !has {
			return m, nil
		}
		m.mode, m.pickAll, m.notice, m.filter = modePicker, key.Matches(k, keys.Everyone), "", ""
		// The picker opens on the lesson the selected learner is on.
		m.pick = 0
		if has {
			if i := m.room.lessonIndex(v.Lesson); i >= 0 {
				m.pick = i
			}
		}
	case key.Matches(k, keys.Watch):
		if has && v.Connected {
			m.mode, m.watching = modeWatch, v.ID
			m.room.Watch(v.ID, true)
			return m, m.watchTick()
		}
	case key.Matches(k, keys.Answer):
		if has {
			m.room.AnswerHand(v.ID)
		}
	case key.Matches(k, keys.End):
		if has && v.Connected {
			m.mode = modeConfirmEnd
		}
	case key.Matches(k, keys.Remove):
		if has && !v.Connected {
			if err := m.room.Remove(v.ID); err == nil {
				m.notice = fmt.Sprintf(m.w.removed, v.ID)
				m = m.refresh()
			}
		}
	case key.Matches(k, keys.Report):
		if path, err := m.room.WriteReport(""); err != nil {
			m.notice = err.Error()
		} else {
			m.notice = fmt.Sprintf(m.w.reportSaid, path)
		}
	case key.Matches(k, keys.Say):
		m.mode = modeSay
		m.input = textinput.New()
		m.input.SetWidth(min(60, max(10, m.width-4)))
		return m, m.input.Focus()
	case key.Matches(k, keys.Pause):
		if m.room.Paused() != "" {
			m.room.Pause("")
			return m, nil
		}
		m.mode = modePause
		m.input = textinput.New()
		m.input.Placeholder = m.w.pausedShort
		m.input.SetWidth(min(50, max(10, m.width-4)))
		return m, m.input.Focus()
	}
	if m.sel < len(m.views) {
		m.selID = m.views[m.sel].ID
	}
	return m, nil
}

// confirm answers a question: y or enter does yes, esc or n does nothing;
// either way the list is back.
func (m instructorModel) confirm(k tea.KeyPressMsg, yes func(*instructorModel)) instructorModel {
	keys := m.keys()
	switch {
	case key.Matches(k, keys.Yes):
		yes(&m)
		m.mode = modeTable
	case key.Matches(k, keys.No):
		m.mode = modeTable
	}
	return m
}

// connected counts the learners connected now.
func (m instructorModel) connected() int {
	n := 0
	for _, v := range m.views {
		if v.Connected {
			n++
		}
	}
	return n
}

// choices are the lessons the picker offers: those the filter keeps (a
// number picks that lesson; letters, the lessons whose name holds them),
// by their place in the course.
func (m instructorModel) choices() []int {
	var out []int
	f := strings.ToLower(m.filter)
	n, isNum := strconv.Atoi(f)
	for i, c := range m.room.course {
		switch {
		case f == "":
		case isNum == nil:
			if i+1 != n && !strings.HasPrefix(strconv.Itoa(i+1), f) {
				continue
			}
		case !strings.Contains(c.Name, f) && !strings.Contains(strings.ToLower(c.Title), f):
			continue
		}
		out = append(out, i)
	}
	return out
}

// pickerKey moves through the lessons, filters them, sends.
func (m instructorModel) pickerKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	choices := m.choices()
	at := slices.Index(choices, m.pick)
	keys := m.keys()
	switch {
	case key.Matches(k, keys.PickUp):
		if at > 0 {
			m.pick = choices[at-1]
		}
	case key.Matches(k, keys.PickDown):
		if at >= 0 && at+1 < len(choices) {
			m.pick = choices[at+1]
		} else if at < 0 && len(choices) > 0 {
			m.pick = choices[0]
		}
	case key.Matches(k, keys.PickCancel):
		m.mode = modeTable
	case key.Matches(k, keys.Erase):
		if m.filter != "" {
			m.filter = string([]rune(m.filter)[:len([]rune(m.filter))-1])
			m = m.pickFirst()
		}
	case key.Matches(k, keys.Send):
		if at < 0 {
			return m, nil
		}
		if m.pickAll {
			m.mode = modeConfirmAll
			return m, nil
		}
		if v, ok := m.selected(); ok {
			m.send([]string{v.ID}, v.ID)
		}
		m.mode = modeTable
	default:
		if t := k.Text; t != "" && utf8.RuneCountInString(t) == 1 && t != " " {
			m.filter += strings.ToLower(t)
			m = m.pickFirst()
		}
	}
	return m, nil
}

// pickFirst keeps the picked lesson among the filter's, else the first.
// A lesson whose name starts with the filter comes before one that only
// holds it (lea: lease before relay, whose title says "lease").
func (m instructorModel) pickFirst() instructorModel {
	choices := m.choices()
	for _, i := range choices {
		if strings.HasPrefix(m.room.course[i].Name, m.filter) {
			m.pick = i
			return m
		}
	}
	if len(choices) > 0 && !slices.Contains(choices, m.pick) {
		m.pick = choices[0]
	}
	return m
}

// send sends ids (everyone connected with none) to the lesson picked.
func (m *instructorModel) send(ids []string, who string) {
	name := m.room.course[m.pick].Name
	if err := m.room.SendLesson(name, ids...); err != nil {
		m.notice = err.Error()
		return
	}
	m.notice = fmt.Sprintf("→ %s: %d %s", who, m.pick+1, name)
}

func (m instructorModel) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "outboxlab workshop"
	return v
}

// width is the screen's width, 80 before the terminal said.
func (m instructorModel) screenWidth() int {
	if m.width <= 0 {
		return 80
	}
	return m.width
}

// wrap fits text to the screen's width, in as many lines as it takes.
func (m instructorModel) wrap(style lipgloss.Style, text string) []string {
	return strings.Split(style.Width(m.screenWidth()).Render(text), "\n")
}

// header is the board: how learners connect (every address they can
// reach), the host key they should see, who is in, the room's state.
func (m instructorModel) header() []string {
	host, port, _ := net.SplitHostPort(m.sshAddr)
	hosts := []string{host}
	if host == "" || host == "0.0.0.0" || host == "::" {
		hosts = m.addrs
		if len(hosts) == 0 {
			hosts = []string{"HOST"}
		}
	}
	first := m.w.title + "  " + fmt.Sprintf(m.w.access, port, strings.Join(hosts, " · NAME@"), m.room.cfg.access(m.w))
	if m.sshAddr == "" {
		first = m.w.title // the web door alone: its line follows
	}
	lines := m.wrap(m.st.Room.Heading, first)
	second := fmt.Sprintf(m.w.learners, m.connected(), m.room.cfg.MaxLearners)
	if m.hostKey != "" {
		second += " · " + fmt.Sprintf(m.w.hostKey, m.hostKey)
	}
	if m.http != "" {
		second += " · " + fmt.Sprintf(m.w.http, m.http)
	}
	lines = append(lines, m.wrap(lipgloss.NewStyle(), second)...)
	if m.web != "" {
		lines = append(lines, m.wrap(lipgloss.NewStyle(), m.web)...)
	}
	if p := m.room.Paused(); p != "" {
		lines = append(lines, m.wrap(m.st.Room.Warn, fmt.Sprintf(m.w.pausedNow, p))...)
	}
	if !m.closeAt.IsZero() {
		left := max(0, int(time.Until(m.closeAt).Round(time.Second).Seconds()))
		lines = append(lines, m.wrap(m.st.Room.Warn, fmt.Sprintf(m.w.closingNow, left))...)
	}
	return append(lines, "")
}

// keys are the screen's keys, their help in its language.
func (m instructorModel) keys() instructorKeys { return newInstructorKeys(m.w) }

// footer is the notice and the keys, wrapped to the width.
func (m instructorModel) footer(keys []key.Binding) []string {
	lines := []string{""}
	if m.notice != "" {
		lines = append(lines, m.wrap(lipgloss.NewStyle(), m.notice)...)
	}
	return append(lines, m.wrap(m.st.Room.Faint, keyLine(keys))...)
}

// tableFooter is the list's foot: the selected learner's raised hand in
// full when their row cuts it, then the notice and the keys.
func (m instructorModel) tableFooter() []string {
	foot := m.footer(m.keys().list(!m.room.cfg.NoReport))
	if h := m.handLine(); h != "" {
		foot = append(append([]string{""}, m.wrap(m.st.Room.Warn, h)...), foot[1:]...)
	}
	return foot
}

// handLine is the selected learner's hand and what they wrote with it,
// when their row is too narrow for it (at 80 columns the state has 16):
// the instructor reads the question without widening the terminal.
func (m instructorModel) handLine() string {
	if m.sel < 0 || m.sel >= len(m.views) {
		return ""
	}
	v := m.views[m.sel]
	if v.Hand.IsZero() || v.HandText == "" || !v.Connected || v.Expected {
		return ""
	}
	state := fmt.Sprintf(m.w.handCol, round(m.room.now().Sub(v.Hand))) + ": " + v.HandText
	if ansi.StringWidth(fmt.Sprintf(rowFormat, "", "", "", "", "", "", "", state)) <= m.screenWidth() {
		return ""
	}
	return v.shown() + " " + state
}

// rows is how many learners' lines the screen has room for.
func (m instructorModel) rows() int {
	h := m.height
	if h <= 0 {
		h = 24
	}
	return max(1, h-len(m.header())-1-len(m.tableFooter()))
}

func (m instructorModel) render() string {
	lines := m.header()
	switch m.mode {
	case modePicker:
		return strings.Join(append(lines, m.picker()...), "\n")
	case modePause:
		lines = append(lines, m.w.pauseAsk, m.input.View())
		return strings.Join(append(lines, m.footer(m.keys().pausing())...), "\n")
	case modeSay:
		lines = append(lines, m.w.sayAsk, m.input.View())
		return strings.Join(append(lines, m.footer(m.keys().saying())...), "\n")
	case modeConfirmStop:
		lines = append(lines, m.wrap(m.st.Room.Heading, fmt.Sprintf(m.w.stopAsk, m.connected(), int(closeGrace.Seconds())))...)
		return strings.Join(append(lines, m.footer(m.keys().stopping())...), "\n")
	case modeConfirmAll:
		lines = append(lines, m.wrap(m.st.Room.Heading, fmt.Sprintf(m.w.sendAllAsk, m.connected(), m.pick+1, m.room.course[m.pick].Name))...)
		return strings.Join(append(lines, m.footer(m.keys().confirming())...), "\n")
	case modeConfirmEnd:
		v, _ := m.selected()
		lines = append(lines, m.wrap(m.st.Room.Heading, fmt.Sprintf(m.w.endAsk, v.ID))...)
		return strings.Join(append(lines, m.footer(m.keys().confirming())...), "\n")
	case modeWatch:
		return m.watchView()
	}
	return strings.Join(append(lines, m.table()...), "\n")
}

// picker is the lessons to send to, the picked one marked, as many as fit.
func (m instructorModel) picker() []string {
	who := m.w.everyone
	if v, ok := m.selected(); ok && !m.pickAll {
		who = v.ID
	}
	lines := []string{fmt.Sprintf(m.w.sendTo, who)}
	if m.filter != "" {
		lines = append(lines, m.st.Room.Faint.Render(fmt.Sprintf(m.w.filter, m.filter)))
	}
	choices := m.choices()
	room := max(1, m.rows()-len(lines))
	at := max(0, slices.Index(choices, m.pick))
	first := max(0, min(at-room/2, len(choices)-room))
	for _, i := range choices[first:min(len(choices), first+room)] {
		c := m.room.course[i]
		line := ansi.Truncate(fmt.Sprintf("  %2d %-14s %s", i+1, c.Name, c.Title), m.screenWidth(), "…")
		if i == m.pick {
			// The mark reads without colours too.
			line = m.st.Room.Chosen.Render("▸" + line[1:])
		}
		lines = append(lines, line)
	}
	return append(lines, m.footer(m.keys().picker())...)
}

// rowFormat lays out a learner's line: 64 columns before the state, so at
// 80 the state's words have 16.
const rowFormat = "%-14s %-12s %-6s %-7s %-6s %-6s %-6s %s"

// table is the learners' list, scrolled so the selected one shows.
func (m instructorModel) table() []string {
	c := m.w.cols
	lines := []string{m.st.Room.Heading.Render(ansi.Truncate(fmt.Sprintf(rowFormat, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]), m.screenWidth(), ""))}
	if len(m.views) == 0 {
		lines = append(lines, m.st.Room.Faint.Render(m.w.none))
	}
	rows := m.rows()
	first := 0
	if len(m.views) > rows {
		// Room for the marks of what is above and below.
		first = max(0, min(m.sel-rows/2, len(m.views)-rows))
	}
	last := min(len(m.views), first+rows)
	for i := first; i < last; i++ {
		v := m.views[i]
		if i == first && first > 0 && rows >= 3 {
			lines = append(lines, m.st.Room.Faint.Render(fmt.Sprintf(m.w.more, first)+" ↑"))
			continue
		}
		if i == last-1 && last < len(m.views) && rows >= 3 {
			lines = append(lines, m.st.Room.Faint.Render(fmt.Sprintf(m.w.more, len(m.views)-last+1)+" ↓"))
			continue
		}
		state := m.w.connected
		switch {
		case v.Expected:
			state = m.w.notJoined
		case !v.Connected:
			state = m.w.disconnected
		case !v.Hand.IsZero():
			state = fmt.Sprintf(m.w.handCol, round(m.room.now().Sub(v.Hand)))
			if v.HandText != "" {
				state += ": " + v.HandText
			}
		case !v.Ready:
			state = m.w.starting // its scene's databases being built
		case v.Stuck:
			state = m.w.stuck
		case v.Idle:
			state = m.w.idle
		}
		if v.Door == "web" {
			state += " · web"
		}
		step, checks := "-", "-"
		if v.Lesson != "" {
			step = fmt.Sprintf("%d/%d", v.Step, v.Steps)
			if v.Place == lessons.PlaceQuiz || v.Place == lessons.PlaceDone {
				step = string(v.Place)
			}
			checks = fmt.Sprintf("%d/%d", v.Checks, v.Total)
		}
		line := fmt.Sprintf(rowFormat, cut(v.shown(), 14), cut(v.Lesson, 12), step, round(v.OnStep), checks, strconv.Itoa(v.Hints), strconv.Itoa(v.Passed), state)
		line = ansi.Truncate(line, m.screenWidth(), "…")
		switch {
		case i == m.sel:
			line = m.st.Room.Chosen.Render(line)
		case !v.Hand.IsZero() || v.Stuck:
			line = m.st.Room.Warn.Render(line)
		case !v.Connected:
			line = m.st.Room.Faint.Render(line)
		}
		lines = append(lines, line)
	}
	return append(lines, m.tableFooter()...)
}

// watchView is the learner's screen as they last saw it, read-only,
// cropped to the instructor's terminal under one line that says whose.
func (m instructorModel) watchView() string {
	title := m.st.Room.Heading.Render(fmt.Sprintf(m.w.watchTitle, m.watching))
	for _, v := range m.views {
		if v.ID == m.watching && !v.Hand.IsZero() {
			title += "  " + m.st.Room.Warn.Render(fmt.Sprintf(m.w.handCol, round(m.room.now().Sub(v.Hand)))+" "+v.HandText)
		}
	}
	foot := m.st.Room.Faint.Render(keyLine(m.keys().watching()))
	h := m.height
	if h <= 0 {
		h = 24
	}
	frame := strings.Split(m.room.Frame(m.watching), "\n")
	room := max(1, h-2)
	if len(frame) > room {
		frame = frame[:room]
	}
	for i, l := range frame {
		frame[i] = ansi.Truncate(l, m.screenWidth(), "")
	}
	for len(frame) < room {
		frame = append(frame, "")
	}
	return strings.Join(append(append([]string{ansi.Truncate(title, m.screenWidth(), "…")}, frame...), ansi.Truncate(foot, m.screenWidth(), "…")), "\n")
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
	st := screen.Default(true)
	m := instructorModel{room: r, w: wordsFor(r.cfg.Lang), st: &st, cancel: cancel, sshAddr: r.SSHAddr(), http: httpAddr, views: r.Learners(),
		addrs: reachableAddrs()}
	if r.ssh != nil {
		m.hostKey = r.hostKeyFingerprint()
	}
	if r.web != nil {
		base := "http://" + r.web.ln.Addr().String()
		m.web = fmt.Sprintf(m.w.webBoard, base+"/", base+"/room?token="+r.web.token)
	}
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
	if addr := r.SSHAddr(); addr != "" {
		_, port, _ := net.SplitHostPort(addr)
		fmt.Fprintf(out, "outboxlab workshop: %s · %s\n", fmt.Sprintf(w.access, port, "HOST", r.cfg.access(w)), fmt.Sprintf(w.learners, 0, r.cfg.MaxLearners))
	} else {
		fmt.Fprintf(out, "outboxlab workshop: %s\n", fmt.Sprintf(w.learners, 0, r.cfg.MaxLearners))
	}
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
				line += fmt.Sprintf(" · %s %d/%d %s · checks %d/%d · hints %d · passed %d", v.Lesson, v.Step, v.Steps, v.Place, v.Checks, v.Total, v.Hints, v.Passed)
			}
			if last[v.ID] != line {
				last[v.ID] = line
				r.logf("%s", line)
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
