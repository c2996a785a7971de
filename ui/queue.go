package ui

// queue.go runs the learner's actions on the simulation one at a time,
// in order, and follows where each leaves the session.

import (
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/ui/pipeline"
	"github.com/outboxlab/outboxlab/ui/timeline"
)

// reset rebuilds the simulation for the current scene, once the operation
// in flight (if any) has returned.
func (m *Model) reset() tea.Cmd {
	if !m.run.reset() {
		return nil
	}
	return tea.Batch(m.buildSim(), m.resize())
}

// enqueue adds an action and starts it if nothing runs.
func (m *Model) enqueue(a action) tea.Cmd {
	if m.sim == nil {
		return nil
	}
	m.run.push(a)
	return m.startNext()
}

// startNext starts the next queued action unless one is running.
func (m *Model) startNext() tea.Cmd {
	if m.sim == nil {
		return nil
	}
	a, ok := m.run.next()
	if !ok {
		return nil
	}
	if a.kind == actEval && (a.check != m.lesson.Current() || m.lesson.Place() != lessons.PlaceStep) {
		// The step moved on since: nothing to check.
		return m.startNext()
	}
	m.run.busy = true
	return actionCmd(m.ctx, m.session, m.simID, a)
}

func (m Model) actionDone(msg actionDoneMsg) (tea.Model, tea.Cmd) {
	resetting := m.run.finished()
	if m.http != nil {
		m.http.Answer(msg.answers...)
		if msg.act.ticket != 0 && msg.err != nil {
			// The request was refused before the api saw it.
			m.http.Answer(sim.Answer{Ticket: msg.act.ticket, Err: msg.err})
		}
	}
	var cmds []tea.Cmd
	m.setActors(msg.actors)
	m.now = msg.now
	a := msg.act
	m.moved(msg)
	if msg.err != nil {
		m.err = msg.err
		m.run.pause()
	} else {
		if a.user {
			m.err = nil // the learner's action went through: an old refusal is history
		}
		// A scripted run or drain moves on in the session (sim.Session.Play);
		// a step of the learner's that moved nothing is said.
		if !a.inRun && !a.script && a.kind == actStep && !msg.moved {
			if m.run.playing {
				m.run.pause()
			}
			m.run.sayStuck(m.stuckNotice())
		} else if a.kind != actEval && m.run.saysStuck() {
			// What was stuck is history after any other action: kept, it
			// said "p sends a payment" while the relay crashed since held
			// the payments sent after it.
			m.run.say("")
		}
	}
	cmds = append(cmds, m.page.done(m.pageCtx(), msg))
	if resetting {
		return m, tea.Batch(append(cmds, m.buildSim(), m.resize())...)
	}
	cmds = append(cmds, m.run.nextTick(), m.startNext(), m.resize())
	return m, tea.Batch(cmds...)
}

// moved follows the session's position after an action: a fork said on
// screen and marked in the timeline, a rewound session's place, a saved file.
func (m *Model) moved(msg actionDoneMsg) {
	was := m.pos
	m.pos = msg.pos
	switch msg.act.kind {
	case actBack, actForward, actSeek, actOther:
		m.run.pause()
		if m.http != nil {
			// The replay has no client waiting: those queued are reset.
			m.http.Abandon()
		}
		// The learner's payments are numbered by their keys: after a
		// rewind the next p is the one that came next then.
		m.requests = m.pos.Keys
		if msg.err == nil {
			m.run.say(positionNotice(m.st, m.pos))
			if msg.act.kind == actOther {
				m.run.say(m.st.Words.T("the other future: %d commands after the fork; u swaps back", m.pos.Len-m.pos.Forked))
				// The marker names the future now on screen.
				m.timeline, _ = m.timeline.Update(timeline.OtherFutureMsg{})
			}
		}
		return
	case actSave:
		if msg.err == nil {
			dir := filepath.Dir(msg.saved)
			name := strings.TrimSuffix(filepath.Base(msg.saved), scenes.Ext)
			m.run.say(m.st.Words.T("saved %s (outboxlab run --scenes %s %s replays it)", msg.saved, dir, name))
		}
		return
	case actEval, actScript:
		return
	}
	if m.pos.Forked >= 0 && m.pos.Forked != was.Forked || m.pos.Forked >= 0 && was.Len > was.At && m.pos.Len == m.pos.At {
		dropped := was.Len - was.At
		m.run.say(m.st.Words.T("forked: %d later commands discarded; the timeline marks where", dropped))
		at := 0
		if m.pos.Forked > 0 && m.pos.Forked <= len(m.pos.Entries) {
			at = m.pos.Entries[m.pos.Forked-1]
		}
		m.timeline, _ = m.timeline.Update(timeline.ForkMsg{At: at})
	}
}

// positionNotice says where a rewound session stands, and what acting now
// does to the rest of its log.
func positionNotice(st *Styles, pos sim.Position) string {
	if pos.At == pos.Len {
		return st.Words.T("at the end of the session (%d commands)", pos.Len)
	}
	return st.Words.T("rewound: %d of %d · [ ] back/forward · acting now discards %d (a fork)", pos.At, pos.Len, pos.Len-pos.At)
}

func (m *Model) setActors(actors []sim.ActorView) {
	m.actors = actors
	m.pipeline, _ = m.pipeline.Update(pipeline.ActorsMsg{Actors: actors})
	m.lesson.SetActors(actors, m.settings)
	m.brokerDown = false
	for _, a := range actors {
		if a.Name == "broker" && a.State == sim.Down {
			m.brokerDown = true
		}
	}
	m.updateKeys()
}

// refresh reads the simulation again, or notes that it must once the read
// in flight returns.
func (m *Model) refresh() tea.Cmd {
	if m.sim == nil {
		return nil
	}
	if !m.run.read() {
		return nil
	}
	epoch, from := m.timeline.Next()
	return snapshotCmd(m.ctx, m.sim, m.simID, m.run.changeGen, epoch, from, m.tables.Request())
}
