package ui

import (
	"github.com/outboxlab/outboxlab/sim"
)

// stuckNotice says, when nothing can move, what would move something: the
// most likely cause first (a crashed or stalled actor, the broker down, work
// waiting for the clock), each with its key, short enough for 80 columns.
func (m Model) stuckNotice() string {
	for _, a := range m.actors {
		// An actor crashed or stalled is what holds the work up: said
		// first, and not as "nothing moves" (the others may still move).
		switch a.State {
		case sim.Crashed:
			return m.st.Words.T("%s crashed: c restarts it", a.Name)
		case sim.Stalled:
			return m.st.Words.T("%s is stalled: s resumes it", a.Name)
		}
	}
	return m.st.Words.Word(stuckPrefix) + m.stuckCause()
}

// stuckPrefix begins every notice that nothing can move.
const stuckPrefix = "nothing moves: "

func (m Model) stuckCause() string {
	for _, a := range m.actors {
		switch a.State {
		case sim.Crashed:
			return m.st.Words.T("%s crashed: c restarts it", a.Name)
		case sim.Stalled:
			return m.st.Words.T("%s is stalled: s resumes it", a.Name)
		}
	}
	for _, a := range m.actors {
		if a.Name == "broker" && a.State == sim.Down {
			return m.st.Words.T("the broker is down: b brings it up")
		}
	}
	if m.pgDown != "" {
		if m.srv != nil && m.srv.External() {
			return m.st.Words.T("PostgreSQL does not answer: n tries again")
		}
		return m.st.Words.T("PostgreSQL stopped: R starts it")
	}
	if m.inFlight {
		return m.st.Words.T("it waits for time: t moves the clock on")
	}
	return m.st.Words.T("p sends a payment")
}
