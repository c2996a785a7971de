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

func (p *simulatorPage) prepare(c pageCtx) (scenes.Settings, []scenes.Step) {
	facts := c.panes.lesson.Facts()
	c.panes.lesson = newLessonPane(c.st, c.run.scene())
	c.panes.lesson.SetFacts(facts)
	return p.settings(c), c.run.scene().Steps
}

// settings are the scene's, in the mode --mode or v asks for.
func (p *simulatorPage) settings(c pageCtx) scenes.Settings {
	sc := c.run.scene()
	set := sc.Settings
	if c.opts.Mode != "" {
		set.Mode = scenes.Mode(c.opts.Mode)
	}
	if p.compareScene == sc.Name {
		set.Mode = scenes.Compare
	}
	return set
}

func (p *simulatorPage) ready(c pageCtx) tea.Cmd {
	if !c.opts.Autoplay {
		return nil
	}
	c.state.autoplay()
	return c.run.enqueue(action{kind: actUnit})
}

func (p *simulatorPage) key(c pageCtx, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k, run := c.keys, c.run
	switch {
	case key.Matches(msg, k.Scenes):
		return run.openPicker(), true
	case key.Matches(msg, k.Compare):
		if p.compareScene == run.scene().Name && !run.compareView() {
			// Back from the compare mode v switched to: the scene's own.
			p.compareScene = ""
			return run.reset(), true
		}
		if run.settings().Mode == scenes.Compare {
			run.setCompareView(!run.compareView())
			return run.resize(), true
		}
		// Outside compare mode, v switches this scene to it: it starts
		// again with the naive dual write beside the outbox.
		p.compareScene = run.scene().Name
		run.setCompareView(true)
		return run.reset(), true
	case key.Matches(msg, k.Back), key.Matches(msg, k.Forward):
		// A rewind resets the databases and replays the session's log
		// up to the point before (or after) this one.
		pos := run.pos()
		kind, end := actBack, pos.At == 0
		if key.Matches(msg, k.Forward) {
			kind, end = actForward, pos.At == pos.Len
		}
		if end {
			c.state.say(positionNotice(c.st, pos))
			if kind == actBack {
				c.state.say(c.st.Words.T("at the start of the session: nothing to go back to"))
			}
			return nil, true
		}
		c.state.stopAutoplay()
		return run.enqueue(action{kind: kind, user: true}), true
	case key.Matches(msg, k.Other) && run.pos().Other == 0:
		c.state.say(c.st.Words.T("no other future here: [ goes back, and what you do then is another one"))
		return nil, true
	case key.Matches(msg, k.Other):
		c.state.stopAutoplay()
		return run.enqueue(action{kind: actOther, user: true}), true
	case key.Matches(msg, k.Save):
		return run.enqueue(action{kind: actSave, user: true, save: saveTo{dir: c.opts.ScenesDir, base: run.scene()}}), true
	}
	return nil, false
}

func (p *simulatorPage) message(pageCtx, tea.Msg) (tea.Cmd, bool) { return nil, false }

func (p *simulatorPage) done(c pageCtx, msg actionDoneMsg) tea.Cmd {
	a, pos := msg.act, c.run.pos()
	if msg.err == nil && a.script && !a.inRun && pos.Script >= pos.ScriptLen && pos.Run == "" {
		c.state.say(c.st.Words.T("the scene's script is done; keep stepping or break something"))
	}
	return nil
}

// enable turns on what a free session may do: a lesson's checks read the
// timeline from where its step began, and play's script runs by itself,
// so neither rewinds or saves.
func (p *simulatorPage) enable(c pageCtx) {
	k := c.keys
	k.Reset.SetHelp("r", c.st.Words.T("reset scene")) // after a lesson left with esc, r is the scene's again
	free := c.run.up()
	k.Back.SetEnabled(free)
	k.Forward.SetEnabled(free)
	k.Save.SetEnabled(free)
	k.Other.SetEnabled(free) // listed always; with no other future it says so
	c.panes.timeline.SetRewind(free)
	if p.compareScene == c.run.scene().Name && !c.run.compareView() {
		k.Compare.SetHelp("v", c.st.Words.T("own mode"))
		return
	}
	compareHelp(c)
}

func (p *simulatorPage) layout(c pageCtx, s regions) regions { return c.panes.mainLayout(s) }

func (p *simulatorPage) body(c pageCtx, l regions) string { return c.panes.mainBody(c.st, l) }

func (p *simulatorPage) script(c pageCtx) []scenes.Step { return c.run.scene().Steps }

func (p *simulatorPage) status(pageCtx) (string, string) { return "", "" }

func (p *simulatorPage) chaosStep(c pageCtx) *lessons.Step { return freeChaosStep(c) }
