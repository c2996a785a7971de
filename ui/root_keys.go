package ui

// root_keys.go is the keyboard and the mouse: the overlays' keys first,
// then the page's, then the simulator's, then the focused pane's.

import (
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/engine/fault"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/ui/overlay/chooser"
)

func (m Model) key(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if msg.String() == "ctrl+c" {
		return m, tea.Quit
	}
	if m.phase != phaseRunning {
		if key.Matches(msg, m.keys.Quit) {
			return m, tea.Quit
		}
		return m, nil
	}
	if o := m.overlays.top(); o != 0 && m.playPage() == nil {
		// play keeps its own two keys over the run it plays.
		cmd := m.updateOverlay(o, msg)
		if cmd != nil && (o == overlayChooser || o == overlayStory) {
			// A dialog's answer and a story's close are plain messages:
			// taken now, before the next key typed (c 2 3 p typed fast
			// sent the payment before the crash was armed).
			return m.Update(cmd())
		}
		return m, cmd
	}
	if m.help.ShowAll && m.playPage() == nil {
		// The full help is read, not typed under: ? or esc closes it, q
		// still quits, and no other key reaches what it covers (an enter
		// pressed there moved a lesson on to its next step).
		switch {
		case key.Matches(msg, m.keys.Help), msg.String() == "esc":
			m.help.ShowAll = false
			return m, m.resize()
		case key.Matches(msg, m.keys.Quit):
			return m, tea.Quit
		}
		return m, nil
	}
	cmd, ok := m.page.key(m.pageCtx(), msg)
	if ok {
		return m, cmd
	}
	// A page may change the screen before passing a key on (a lesson's
	// introduction turned): what it returns runs with the key's own.
	next, more := m.simulatorKey(msg)
	return next, tea.Batch(cmd, more)
}

// simulatorKey is a key no overlay or page took: the simulator's, else the
// focused pane's.
func (m Model) simulatorKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := &m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return m, tea.Quit
	case key.Matches(msg, k.Help):
		m.help.ShowAll = !m.help.ShowAll
		return m, m.resize()
	case key.Matches(msg, k.Chaos):
		return m, m.startChaos()
	case key.Matches(msg, k.NextPane):
		m.nextFocus()
		return m, nil
	case key.Matches(msg, k.Reset):
		return m, m.reset()
	case key.Matches(msg, k.Play):
		m.run.say("")
		if m.run.toggle() {
			return m, m.enqueue(action{kind: actUnit})
		}
		return m, nil
	case key.Matches(msg, k.Step):
		m.run.say("")
		return m, m.enqueue(action{kind: actUnit, user: true})
	case key.Matches(msg, k.Faster):
		m.run.faster()
		return m, nil
	case key.Matches(msg, k.Slower):
		m.run.slower()
		return m, nil
	case key.Matches(msg, k.Crash), key.Matches(msg, k.Stall), key.Matches(msg, k.Move), key.Matches(msg, k.AdvanceBy):
		dialog := string(fault.Crash)
		switch {
		case key.Matches(msg, k.Stall):
			dialog = string(fault.Stall)
		case key.Matches(msg, k.Move):
			dialog = "move"
		case key.Matches(msg, k.AdvanceBy):
			dialog = string(fault.Advance)
		}
		m.chooser = chooser.New(m.st, dialog, m.actors, m.settings)
		m.overlays.push(overlayChooser)
		m.sizeChooser()
		return m, nil
	case key.Matches(msg, k.Drain):
		m.run.say("")
		return m, m.enqueue(action{kind: actDo, step: scenes.Drain, user: true})
	case key.Matches(msg, k.Requeue):
		return m, m.enqueue(action{kind: actDo, step: scenes.Requeue, user: true})
	case key.Matches(msg, k.Capture):
		return m, m.enqueue(action{kind: actDo, step: scenes.Capture, user: true})
	case key.Matches(msg, k.Reuse):
		return m, m.enqueue(action{kind: actDo, step: scenes.ResendOther(fmt.Sprintf("k-%d", m.requests)), user: true})
	case key.Matches(msg, k.Duplicate):
		return m, m.enqueue(action{kind: actDo, step: scenes.Duplicate, user: true})
	case key.Matches(msg, k.Broker):
		return m, m.enqueue(action{kind: actDo, step: scenes.Broker(m.brokerDown), user: true})
	case key.Matches(msg, k.RestartPG):
		if m.opts.NoRestartPG != "" {
			m.run.say(m.opts.NoRestartPG)
			return m, nil
		}
		return m, m.enqueue(action{kind: actDo, step: scenes.RestartPostgres, user: true})
	case key.Matches(msg, k.FailNext):
		if m.settings.Mode == "compare" {
			// Two writers run: ask which one's COMMIT fails, rather than
			// arm both (a lesson's later step would be done already).
			m.chooser = chooser.New(m.st, "fail", m.actors, m.settings)
			m.overlays.push(overlayChooser)
			m.sizeChooser()
			return m, nil
		}
		return m, m.enqueue(action{kind: actDo, step: chooser.FailCommit(m.settings.Pipelines()[0], m.settings), user: true})
	case key.Matches(msg, k.Payment), key.Matches(msg, k.Poison):
		m.requests++
		// A poison payload fails the topic's schema: the broker refuses it
		// every time, until the relay dead-letters it (S15).
		st := scenes.Request(1000+250*m.requests, "acme", fmt.Sprintf("k-%d", m.requests), key.Matches(msg, k.Poison))
		m.updateKeys()
		return m, m.enqueue(action{kind: actDo, step: st, user: true})
	case (key.Matches(msg, k.Resend) || key.Matches(msg, k.Reuse)) && m.requests == 0:
		m.run.say(m.st.Words.T("no payment to send again yet: p sends one"))
		return m, nil
	case key.Matches(msg, k.Resend):
		// The learner's own last payment, by its key: not a request the
		// scene's script sent since.
		return m, m.enqueue(action{kind: actDo, step: scenes.Resend(fmt.Sprintf("k-%d", m.requests)), user: true})
	case key.Matches(msg, k.Advance):
		return m, m.enqueue(action{kind: actDo, step: scenes.Advance(m.settings.Lease + time.Second), user: true})
	}
	// Everything else is the focused pane's.
	var cmd tea.Cmd
	switch m.focus {
	case focusTables:
		m.tables, cmd = m.tables.Update(msg)
	case focusTimeline:
		m.timeline, cmd = m.timeline.Update(msg)
	case focusLesson:
		m.lesson, cmd = m.lesson.Update(msg)
	}
	m.updateKeys()
	return m, cmd
}

func (m Model) mouse(msg tea.MouseWheelMsg) (tea.Model, tea.Cmd) {
	if m.phase != phaseRunning || m.overlays.top() != 0 {
		// The panes beneath an overlay are not on screen: they do not scroll.
		return m, nil
	}
	l := m.layout()
	y := msg.Mouse().Y
	var cmd tea.Cmd
	switch {
	case l.tables.contains(msg.Mouse().X, y):
		m.tables, cmd = m.tables.Update(msg)
	case l.timeline.contains(msg.Mouse().X, y):
		m.timeline, cmd = m.timeline.Update(msg)
	case l.lesson.contains(msg.Mouse().X, y):
		m.lesson, cmd = m.lesson.Update(msg)
	}
	return m, cmd
}

func (m *Model) setFocus() {
	m.tables.SetFocused(m.focus == focusTables)
	m.timeline.SetFocused(m.focus == focusTimeline)
	m.lesson.SetFocused(m.focus == focusLesson)
}

// updateKeys enables the keys that apply now, so help shows only those.
func (m *Model) updateKeys() {
	k := &m.keys
	running := m.phase == phaseRunning && m.sim != nil
	for _, b := range k.all() {
		b.SetEnabled(running)
	}
	k.Quit.SetEnabled(true)
	k.Help.SetEnabled(m.phase == phaseRunning)
	k.Scenes.SetEnabled(m.phase == phaseRunning)
	k.Compare.SetEnabled(running)
	// A rewind or a saved session is the free simulator's page's to allow.
	for _, b := range []*key.Binding{&k.Back, &k.Forward, &k.Save, &k.Other, &k.Hint, &k.Next, &k.Choose, &k.Leave} {
		b.SetEnabled(false)
	}
	m.timeline.SetRewind(false)
	// i and I are listed before any payment (help lists every key): they
	// then say there is none to resend.
	// An external server (--database-url) is not outboxlab's to stop.
	k.RestartPG.SetEnabled(running && m.srv != nil && (!m.srv.External() || m.opts.NoRestartPG != ""))
	if m.pgDown != "" {
		k.RestartPG.SetHelp("R", m.st.Words.T("start PostgreSQL again"))
	} else {
		k.RestartPG.SetHelp("R", m.st.Words.T("restart PostgreSQL"))
	}
	k.Faster.SetEnabled(running && !m.run.atFastest())
	k.Slower.SetEnabled(running && !m.run.atSlowest())
	if m.brokerDown {
		k.Broker.SetHelp("b", m.st.Words.T("broker up"))
	} else {
		k.Broker.SetHelp("b", m.st.Words.T("broker down"))
	}
	if m.run.playing {
		k.Play.SetHelp(m.st.Words.Word("space"), m.st.Words.T("pause"))
	} else {
		k.Play.SetHelp(m.st.Words.Word("space"), m.st.Words.T("run"))
	}
	c := m.pageCtx()
	compareHelp(c)
	k.Chaos.SetEnabled(running && (m.page.chaosStep(c) != nil || m.chaos.Report() != nil && m.lessonPage() != nil))
	k.chaosFirst = m.lessonPage() != nil && m.page.chaosStep(c) != nil
	m.page.enable(c)
	m.timeline.SetPicker(k.Scenes.Enabled())
}

// compareHelp says what v does now.
func compareHelp(c pageCtx) {
	k, w := c.keys, c.st.Words
	switch {
	case c.run.settings().Mode != scenes.Compare:
		k.Compare.SetHelp("v", w.T("compare mode"))
	case c.run.compareView():
		k.Compare.SetHelp("v", w.T("main view"))
	default:
		k.Compare.SetHelp("v", w.T("compare view"))
	}
}

// nextFocus moves the focus to the next pane on screen.
func (m *Model) nextFocus() {
	l := m.layout()
	for range focusCount {
		m.focus = (m.focus + 1) % focusCount
		r := map[focus]rect{focusTables: l.tables, focusTimeline: l.timeline, focusLesson: l.lesson}[m.focus]
		if r.h > 0 {
			break
		}
	}
	m.setFocus()
	m.updateKeys()
}

// sizeChooser gives a dialog just opened the body's size: it wraps its
// text to it.
func (m *Model) sizeChooser() {
	l := m.layout()
	m.chooser.SetSize(l.body.w, l.body.h)
}
