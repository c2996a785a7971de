package ui

// frame.go places and draws the screen: the status line, the body the
// page lays out, the overlays and the help.

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/screen"
	"github.com/outboxlab/outboxlab/sim"
)

// rect is a region of the screen.
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool {
	return r.w > 0 && x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h
}

// regions are where each pane goes on the screen at the current size.
type regions struct {
	status, body, pipeline, tables, timeline, guarantees, metrics, lesson, caption, help rect
	compact                                                                              bool // guarantees as a summary strip, no right column
}

func (m Model) size() (int, int) {
	if m.w == 0 || m.h == 0 {
		return minWidth, minHeight // before the first WindowSizeMsg
	}
	return m.w, m.h
}

func (m Model) helpView() string {
	if keys, alone := m.overlayHelp(m.overlays.top()); alone {
		// Over the story or a chaos run, its own keys are the only ones
		// that work (as many as fit the line, never cut with "…").
		if !m.help.ShowAll {
			return m.help.ShortHelpView(fitShort(keys.ShortHelp(), m.help.Width(), key.Binding{}))
		}
		return m.help.View(keys)
	}
	if m.playPage() != nil {
		// play's keys are its own: no pane takes keys there.
		return m.help.View(combinedHelp{global: m.keys, width: m.help.Width()})
	}
	v := m.help.View(combinedHelp{global: m.keys, pane: m.focusedHelp(), width: m.help.Width()})
	keysOnly := v
	if m.help.ShowAll && len(m.lesson.PSQL()) > 0 {
		// The full help also says how to look at the same tables with psql,
		// and how to reach the HTTP API.
		lead := m.st.Words.T("from another terminal: ")
		lines := m.lesson.PSQL()
		if m.http != nil {
			lines = append(slices.Clip(lines), m.http.Curl()...)
		}
		// Each command whole: under the lead when the line is wide enough,
		// else on lines of its own, wrapped at spaces.
		W, _ := m.size()
		indent := ansi.StringWidth(lead)
		widest := 0
		for _, l := range lines {
			widest = max(widest, ansi.StringWidth(l))
		}
		if indent+widest > W {
			indent = 2
			v += "\n" + m.st.App.Muted.Render(strings.TrimSpace(lead))
			lead = ""
		}
		var out []string
		for i, l := range lines {
			for j, piece := range screen.WrapWhole(l, W-indent, 4) {
				if i == 0 && j == 0 && lead != "" {
					out = append(out, lead+piece)
					continue
				}
				out = append(out, strings.Repeat(" ", indent)+piece)
			}
		}
		v += "\n" + m.st.App.Muted.Render(strings.Join(out, "\n"))
	}
	if m.help.ShowAll {
		// Which broker runs, and why this one: the learner's next question
		// is "and with a real broker?".
		v += "\n" + m.st.App.Muted.Render(m.st.Words.T("broker: in-process, on the simulator's virtual clock:")+
			"\n"+m.st.Words.T("        only it can be stopped between two statements;")+
			"\n"+m.st.Words.T("        outboxlab live: the same engine on NATS JetStream, in real time"))
		// The keys come first: what is said beside them is left out when
		// the help would not fit the screen with it (below the status line).
		if _, H := m.size(); strings.Count(v, "\n")+1 > H-1 {
			v = keysOnly
		}
	}
	return v
}

func (m Model) focusedHelp() help.KeyMap {
	if keys, _ := m.overlayHelp(m.overlays.top()); keys != nil {
		return keys
	}
	switch {
	case m.compareView:
		return m.timeline
	case m.focus == focusLesson:
		return m.lesson
	case m.focus == focusTables:
		return m.tables
	}
	return m.timeline
}

func (m Model) layout() regions {
	W, H := m.size()
	var s regions
	s.status = rect{0, 0, W, 1}
	hh := 1
	if m.help.ShowAll {
		hh = len(strings.Split(m.helpView(), "\n"))
	}
	hh = min(hh, H-1) // the status line stays
	s.help = rect{0, H - hh, W, hh}
	if H-1-hh < minBodyUnderHelp {
		// A full help this tall would squeeze the panes below what they
		// can draw: the panes keep their room and render draws the help
		// over the foot of the body.
		hh = 1
	}
	s.body = rect{0, 1, W, H - 1 - hh}
	if m.overlays.has(overlayPicker) || m.compareView {
		// The picker takes the whole body, the panes no room.
		return s
	}
	return m.page.layout(m.pageCtx(), s)
}

// mainLayout places the simulator's panes in the body.
func (m *panes) mainLayout(s regions) regions {
	W := s.body.w
	y, bodyH := s.body.y, s.body.h
	ph := m.pipeline.Height(max(3, min(13, bodyH/3)))
	s.pipeline = rect{0, y, W, ph}
	y += ph
	rest := bodyH - ph
	if W >= 110 {
		// Pipeline on top; tables beside the guarantees, metrics and
		// lesson; the timeline full width under them, its explanations
		// being the longest text on screen.
		rw := 44
		if W >= 150 {
			rw = 56
		}
		lw := W - rw - 1
		tlh := max(8, rest/3)
		mid := rest - tlh
		s.tables = rect{0, y, lw, mid}
		s.timeline = rect{0, y + mid, W, tlh}
		gh := min(m.guarantees.Height(rw), mid)
		s.guarantees = rect{lw + 1, y, rw, gh}
		left := mid - gh
		if mh := m.metrics.Height(); left >= mh {
			s.metrics = rect{lw + 1, y + gh, rw, mh}
			left -= mh
		}
		if left >= 3 {
			s.lesson = rect{lw + 1, y + mid - left, rw, left}
		}
		return s
	}
	s.compact = true
	gh := min(m.guarantees.CompactHeight(W), rest/3)
	s.guarantees = rect{0, y, W, gh}
	y += gh
	rest -= gh
	th := rest / 2
	s.tables = rect{0, y, W, th}
	s.timeline = rect{0, y + th, W, rest - th}
	return s
}

// resize gives each pane its size; the tables pane reads again when the
// number of rows that fit changed.
func (m *Model) resize() tea.Cmd {
	l := m.layout()
	W, _ := m.size()
	m.boot.SetSize(W, l.body.h+l.help.h)
	m.pipeline.SetSize(l.pipeline.w, l.pipeline.h)
	before := m.tables.Visible()
	m.tables.SetSize(l.tables.w, l.tables.h)
	m.tables.SetNamed(m.lesson.Named())
	m.timeline.SetSize(l.timeline.w, l.timeline.h)
	if m.compareView {
		th := max(5, l.body.h-m.compareTopHeight(l.body.h))
		m.timeline.SetSize(W, th)
	}
	m.guarantees.SetSize(l.guarantees.w, l.guarantees.h)
	m.metrics.SetSize(l.metrics.w, l.metrics.h)
	m.lesson.SetSize(l.lesson.w, l.lesson.h)
	m.picker.SetSize(l.body.w, l.body.h)
	m.chooser.SetSize(l.body.w, l.body.h)
	if m.overlays.has(overlayStory) {
		m.story.SetSize(l.body.w, l.body.h)
	}
	if m.overlays.has(overlayChaos) {
		m.chaos.SetSize(l.body.w, l.body.h)
	}
	m.setFocus()
	m.updateKeys()
	if m.sim != nil && l.tables.h > 0 && m.tables.Visible() != before {
		var cmd tea.Cmd
		m.tables, cmd = m.tables.Fetch()
		return cmd
	}
	return nil
}

func (m Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "outboxlab"
	return v
}

// render draws the whole screen as text.
func (m Model) render() string {
	W, H := m.size()
	if W < minWidth || H < minHeight {
		// All it shows, in the screen's language.
		return m.st.Words.T("terminal too small: need %d×%d", minWidth, minHeight)
	}
	if m.phase != phaseRunning {
		return m.boot.View()
	}
	l := m.layout()
	body := m.drawOverlays(func() string {
		if m.compareView {
			return m.compareBody(l.body)
		}
		return m.page.body(m.pageCtx(), l)
	}, l.body.w, l.body.h)
	if pp := m.playPage(); pp != nil {
		if c := pp.caption(m.pageCtx(), l); c != "" {
			body += "\n" + c // under an overlay too: play captions the chaos run it plays
		}
	}
	if band := m.noticeBand(W); len(band) > 0 {
		// A notice too long for the status line (w's saved file and the
		// command that replays it) is drawn whole over the foot of the body.
		lines := strings.Split(body, "\n")
		if n := len(lines) - len(band); n >= 0 {
			for i, b := range band {
				lines[n+i] = m.st.App.Notice.Render(screen.FitLine(b, W))
			}
			body = strings.Join(lines, "\n")
		}
	}
	helpLines := m.helpView()
	out := m.statusView(W) + "\n" + body
	if over := l.help.y; over < l.body.y+l.body.h {
		out = strings.Join(strings.Split(out, "\n")[:over], "\n")
	}
	return out + "\n" + screen.Block(helpLines, W, l.help.h)
}

// mainBody draws the simulator's panes as mainLayout places them.
func (m *panes) mainBody(st *Styles, l regions) string {
	gutter := st.Pane.Gutter.Render("│")
	parts := []string{m.pipeline.View()}
	if l.compact {
		parts = append(parts, m.guarantees.CompactView(), m.tables.View(), m.timeline.View())
		return strings.Join(parts, "\n")
	}
	right := []string{m.guarantees.View()}
	if l.metrics.h > 0 {
		right = append(right, m.metrics.View())
	}
	if l.lesson.h > 0 {
		right = append(right, m.lesson.View())
	}
	parts = append(parts,
		screen.JoinColumns(gutter, m.tables.View(), screen.Block(strings.Join(right, "\n"), l.guarantees.w, l.tables.h)),
		m.timeline.View())
	return strings.Join(parts, "\n")
}

// compareTopHeight is the height of the side-by-side part of compare view.
func (m Model) compareTopHeight(bodyH int) int {
	stack := 1
	for _, k := range m.settings.Pipelines() {
		stack = max(stack, m.pipeline.Stack(k))
	}
	g := 0
	for _, k := range m.settings.Pipelines() {
		g = max(g, m.guarantees.PipelineHeight(k, (m.w-1)/2))
	}
	return min(bodyH-5, 1+2*stack+1+max(g, 4))
}

// compareBody puts the naive and the outbox pipeline side by side (the same
// requests and faults went to both), the timeline under them.
func (m Model) compareBody(body rect) string {
	W := body.w
	cw := (W - 1) / 2
	top := m.compareTopHeight(body.h)
	stack := 1
	for _, k := range m.settings.Pipelines() {
		stack = max(stack, m.pipeline.Stack(k))
	}
	rows := min(2*stack, max(1, top-5))
	if W < wideLesson {
		// Too narrow for two pipelines side by side: each full width, one
		// line per actor, then their guarantees side by side.
		var lines []string
		for _, k := range m.settings.Pipelines() {
			lines = append(lines, strings.Split(m.pipeline.ViewPipeline(k, W, m.pipeline.Stack(k), true), "\n")...)
		}
		gh := max(1, top-len(lines))
		var gs []string
		for i, k := range m.settings.Pipelines() {
			w := cw
			if i == 1 {
				w = W - cw - 1
			}
			title := screen.PaneTitle(m.st, false, strings.ToUpper(k[:1])+k[1:], "", w)
			gs = append(gs, screen.Block(title+"\n"+m.guarantees.ViewPipeline(k, w, gh-1), w, gh))
		}
		lines = append(lines, screen.JoinColumns(m.st.Pane.Gutter.Render("│"), gs...))
		return screen.Block(strings.Join(lines, "\n"), W, top) + "\n" + m.timeline.View()
	}
	var cols []string
	for i, k := range m.settings.Pipelines() {
		w := cw
		if i == 1 {
			w = W - cw - 1
		}
		title := screen.PaneTitle(m.st, false, strings.ToUpper(k[:1])+k[1:], m.st.Words.Word(pipelineBlurb(k)), w)
		pipe := m.pipeline.ViewPipeline(k, w, rows, false)
		g := m.guarantees.ViewPipeline(k, w, top-1-rows)
		cols = append(cols, screen.Block(title+"\n"+pipe+"\n"+g, w, top))
	}
	return screen.JoinColumns(m.st.Pane.Gutter.Render("│"), cols...) + "\n" + m.timeline.View()
}

func pipelineBlurb(kind string) string {
	if kind == "naive" {
		return "dual write: commit and publish"
	}
	return "outbox row in the same transaction"
}

func (m Model) statusView(W int) string {
	st := m.st.App
	sep := st.Status.Render(" │ ")
	wide := W >= 110
	w := m.st.Words
	kv := func(k, v string) string {
		if !wide {
			return st.StatusValue.Render(v)
		}
		return st.StatusKey.Render(w.Word(k)+" ") + st.StatusValue.Render(v)
	}
	play, label := m.page.status(m.pageCtx())
	if play == "" {
		play = w.T("‖ paused")
		if m.run.playing {
			play = w.T("▶ running")
		}
	}
	if m.run.busy {
		play += "…"
	}
	seed := m.opts.Seed
	if seed == 0 {
		seed = m.settings.Seed
	}
	parts := []string{
		st.Logo.Render("outboxlab"),
		kv("scene", m.scene.Name),
		st.StatusValue.Render(play),
		kv("time", clock(m.now)),
		kv("mode", w.Word(string(m.settings.Mode))),
		kv("speed", fmt.Sprintf("%g/s", m.run.perSecond())),
		st.StatusKey.Render(w.T("seed")+" ") + st.StatusValue.Render(fmt.Sprint(seed)),
	}
	if label != "" {
		parts = slices.Insert(parts, 1, kv("lesson", label))
		if label == m.scene.Name {
			// A lesson named as its scene: one name, not two.
			parts = slices.Delete(parts, 2, 3)
		}
	}
	if n := len(m.page.script(m.pageCtx())); n > 0 {
		parts = append(parts, st.StatusKey.Render(w.T("script")+" ")+st.StatusValue.Render(fmt.Sprintf("%d/%d", m.pos.Script, n)))
	}
	// What needs the learner comes first, right after the name, so a narrow
	// terminal cuts the run's details instead.
	msg := ""
	switch {
	case m.simErr != nil:
		msg = st.Error.Render(screen.OneLine(sayError(m.simErr, m.st.Words)))
	case m.err != nil:
		msg = st.Error.Render(screen.OneLine(sayError(m.err, m.st.Words)))
	case m.run.notice != "" && len(m.noticeBand(W)) == 0:
		msg = st.Notice.Render(m.run.notice)
	}
	if msg != "" {
		parts = slices.Insert(parts, 1, msg)
	}
	// The parts that fit, whole, in their order: the run's details go
	// first on a narrow terminal, never cut mid-word ("semill…"). Only a
	// message longer than the line is cut (a notice that long is drawn
	// whole in a band instead: noticeBand).
	line := parts[0]
	for i, p := range parts[1:] {
		if ansi.StringWidth(line+sep+p) > W {
			if i == 0 {
				line += sep + p
			}
			break
		}
		line += sep + p
	}
	return screen.FitLine(line, W)
}

// noticeBand is the notice wrapped to the screen's width when it would not
// fit the status line after the logo (it comes first there, so one that
// fits is read whole): none when it fits, or when an error takes the line.
func (m Model) noticeBand(W int) []string {
	room := W - ansi.StringWidth("outboxlab │ ")
	if m.run.notice == "" || m.err != nil || m.simErr != nil || ansi.StringWidth(m.run.notice) <= room {
		return nil
	}
	return screen.WrapWhole(m.run.notice, W-2, 2)
}

// sayError is an error as the learner reads it: one the simulator can say
// as a catalog sentence in their language, any other as it is.
func sayError(err error, w *catalog.Printer) string {
	if down := (*sim.PostgresDownError)(nil); errors.As(err, &down) {
		return down.Say().In(w)
	}
	if script := (*sim.ScriptError)(nil); errors.As(err, &script) && script.Say.Key != "" {
		return script.Say.In(w)
	}
	return err.Error()
}

func clock(t time.Time) string {
	if t.IsZero() {
		return "--:--:--.---"
	}
	return t.Format("15:04:05.000")
}

// centreOver draws fg centred over bg (both w×h text): two layers of one
// lipgloss canvas.
func centreOver(bg, fg string, w, h int) string {
	x := max(0, (w-min(lipgloss.Width(fg), w))/2)
	y := max(0, (h-lipgloss.Height(fg))/2)
	c := lipgloss.NewCanvas(w, h)
	c.Compose(lipgloss.NewCompositor(lipgloss.NewLayer(bg), lipgloss.NewLayer(fg).X(x).Y(y).Z(1)))
	return c.Render()
}
