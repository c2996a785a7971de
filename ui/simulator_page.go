package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/scenes"
)

// simulatorPage is the free simulator: a scene and its script, and what
// only a free session may do — rewind, fork, save it as a scene, switch
// scenes and switch a scene to compare mode.
type simulatorPage struct {
	// compareScene is the scene v switched to compare mode; another scene
	// opens in its own mode.
	compareScene string
}

func (p *simulatorPage) prepare(m *Model) (scenes.Settings, []scenes.Step) {
	facts := m.lesson.facts
	m.lesson = newLessonPane(m.st, m.scene)
	m.lesson.facts = facts
	return p.settings(*m), m.scene.Steps
}

// settings are the scene's, in the mode --mode or v asks for.
func (p *simulatorPage) settings(m Model) scenes.Settings {
	set := m.scene.Settings
	if m.opts.Mode != "" {
		set.Mode = scenes.Mode(m.opts.Mode)
	}
	if p.compareScene == m.scene.Name {
		set.Mode = scenes.Compare
	}
	return set
}

func (p *simulatorPage) ready(m *Model) tea.Cmd {
	if !m.opts.Autoplay {
		return nil
	}
	m.playing = true
	return m.enqueue(action{kind: actUnit})
}

func (p *simulatorPage) key(m *Model, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := &m.keys
	switch {
	case key.Matches(msg, k.Scenes):
		m.overlays.push(overlayPicker)
		return tea.Batch(m.picker.open(m.scene.Name), m.resize()), true
	case key.Matches(msg, k.Compare):
		if p.compareScene == m.scene.Name && !m.compareView {
			// Back from the compare mode v switched to: the scene's own.
			p.compareScene = ""
			return m.reset(), true
		}
		if m.settings.Mode == scenes.Compare {
			return m.toggleCompareView(), true
		}
		// Outside compare mode, v switches this scene to it: it starts
		// again with the naive dual write beside the outbox.
		p.compareScene, m.compareView = m.scene.Name, true
		return m.reset(), true
	case key.Matches(msg, k.Back), key.Matches(msg, k.Forward):
		// A rewind resets the databases and replays the session's log
		// up to the point before (or after) this one.
		kind, end := actBack, m.pos.At == 0
		if key.Matches(msg, k.Forward) {
			kind, end = actForward, m.pos.At == m.pos.Len
		}
		if end {
			m.notice = m.positionNotice()
			if kind == actBack {
				m.notice = m.st.Words.T("at the start of the session: nothing to go back to")
			}
			return nil, true
		}
		m.stopAutoplay()
		return m.enqueue(action{kind: kind, user: true}), true
	case key.Matches(msg, k.Other):
		m.stopAutoplay()
		return m.enqueue(action{kind: actOther, user: true}), true
	case key.Matches(msg, k.Save):
		return m.enqueue(action{kind: actSave, user: true, save: saveTo{dir: m.opts.ScenesDir, base: m.scene}}), true
	}
	return nil, false
}

func (p *simulatorPage) message(*Model, tea.Msg) (tea.Cmd, bool) { return nil, false }

func (p *simulatorPage) done(m *Model, msg actionDoneMsg) tea.Cmd {
	a := msg.act
	if msg.err == nil && a.script && !a.inRun && m.pos.Script >= m.pos.ScriptLen && m.pos.Run == "" {
		m.notice = m.st.Words.T("the scene's script is done; keep stepping or break something")
	}
	return nil
}

// enable turns on what a free session may do: a lesson's checks read the
// timeline from where its step began, and play's script runs by itself,
// so neither rewinds or saves.
func (p *simulatorPage) enable(m *Model) {
	k := &m.keys
	free := m.phase == phaseRunning && m.sim != nil
	k.Back.SetEnabled(free)
	k.Forward.SetEnabled(free)
	k.Save.SetEnabled(free)
	k.Other.SetEnabled(free && m.pos.Other > 0)
	m.timeline.keys.Rewind.SetEnabled(free)
	if p.compareScene == m.scene.Name && !m.compareView {
		k.Compare.SetHelp("v", m.st.Words.T("own mode"))
		return
	}
	m.compareHelp()
}

func (p *simulatorPage) layout(m Model, s screen) screen { return m.mainLayout(s) }

func (p *simulatorPage) body(m Model, l screen) string { return m.mainBody(l) }

func (p *simulatorPage) script(m Model) []scenes.Step { return m.scene.Steps }

func (p *simulatorPage) status(Model) (string, string) { return "", "" }

func (p *simulatorPage) chaosStep(m Model) *lessons.Step { return freeChaosStep(m) }

func (p *simulatorPage) caption(Model, screen) string { return "" }

func (p *simulatorPage) ownsKeys() bool { return false }

func (p *simulatorPage) shownLesson() *lessonPage { return nil }

func (p *simulatorPage) learn(lp *lessonPage) (page, bool) { return lp, true }

func (p *simulatorPage) failed() error { return nil }
