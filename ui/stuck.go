package ui

import (
	"fmt"

	"github.com/outboxlab/outboxlab/sim"
)

// stuckNotice says, when nothing can move, what would move something: the
// most likely cause first (a crashed or stalled actor, the broker down, work
// waiting for the clock), each with its key, short enough for 80 columns.
func (m Model) stuckNotice() string {
	return stuckPrefix + m.stuckCause()
}

// stuckPrefix begins every notice that nothing can move.
const stuckPrefix = "nothing moves: "

func (m Model) stuckCause() string {
	for _, a := range m.actors {
		switch a.State {
		case sim.Crashed:
			return fmt.Sprintf("%s crashed: c restarts it", a.Name)
		case sim.Stalled:
			return fmt.Sprintf("%s is stalled: s resumes it", a.Name)
		}
	}
	for _, a := range m.actors {
		if a.Name == "broker" && a.State == sim.Down {
			return "the broker is down: b brings it up"
		}
	}
	if m.pgDown != "" {
		if m.srv != nil && m.srv.External() {
			return "PostgreSQL does not answer: n tries again"
		}
		return "PostgreSQL stopped: R starts it"
	}
	if m.inFlight {
		return "it waits for time: t moves the clock on"
	}
	return "p sends a payment"
}
