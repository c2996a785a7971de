package chaos

import (
	"time"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/sim"
)

// TimelineDoubleLeases counts, from the timeline alone, the claims that
// took a row while another worker's lease on it was still running: the
// same figure the database's lease witness gives (double_leases), found
// another way, so the two can check each other. A worker is a relay
// process: a restarted relay-1 is a new one. A lease is held from its
// claim until its holder marks the row, schedules its retry or dead-
// letters it, or until it expires; with hold-transaction, whose claim's
// transaction holds the rows locked, until that transaction ends: a mark,
// or a rollback (a crash, an error).
func TimelineDoubleLeases(tl []sim.Entry, holdTx bool) int {
	type hold struct {
		worker string
		until  *time.Time // nil: held by an open transaction
	}
	held := map[string]hold{}
	gen := map[string]int{}
	worker := func(e sim.Entry) string { return e.Actor + "#" + string(rune('0'+gen[e.Actor])) }
	n := 0
	for _, e := range tl {
		if e.Pipeline != "outbox" {
			continue
		}
		switch {
		case e.Kind == sim.KindRestart:
			gen[e.Actor]++
		case (e.Kind == sim.KindCrash || e.Kind == sim.KindError) && holdTx:
			// The claim's transaction rolls back with the connection.
			for id, h := range held {
				if h.worker == worker(e) {
					delete(held, id)
				}
			}
		case e.Statement == "poll_by_seq", e.Statement == "advance_cursor":
			// The seq cursor leases nothing: two of them reading one row is
			// a double publish (the inbox absorbs it), not a double lease.
		case e.Checkpoint == string(engine.RelayClaimed):
			for _, id := range e.MessageIDs {
				if h, ok := held[id]; ok && h.worker != worker(e) && (h.until == nil || h.until.After(e.At)) {
					n++
				}
				held[id] = hold{worker(e), e.LeaseUntil}
			}
		case e.Checkpoint == string(engine.RelayMarked), e.Checkpoint == string(engine.RelayRetryScheduled), e.Checkpoint == string(engine.RelayDeadLettered):
			for _, id := range e.MessageIDs {
				if h, ok := held[id]; ok && h.worker == worker(e) {
					delete(held, id)
				}
			}
		}
	}
	return n
}
