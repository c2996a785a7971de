package sim

import (
	"context"
	"fmt"
)

// Edge is what is in flight between two actors, as the pipeline view draws
// it on the arrow between them.
type Edge struct {
	Pipeline string
	From, To string
	Queued   int // waiting to be taken (outbox rows ready or retrying; broker messages queued)
	Unacked  int // taken and not finished (rows leased by a relay; deliveries not ACKed)
}

// Edges lists the messages in flight on each edge of each pipeline: in the
// outbox (postgres → relays) and in the broker (broker → each consumer).
func (s *Sim) Edges(ctx context.Context) ([]Edge, error) {
	s.op.Lock()
	defer s.op.Unlock()
	var out []Edge
	now := s.clock.Peek()
	for _, p := range s.pipes {
		if p.Kind == "outbox" {
			e := Edge{Pipeline: p.Kind, From: "postgres", To: "relay"}
			if err := p.pool.QueryRow(ctx, sqlOutboxEdge, now).Scan(&e.Queued, &e.Unacked); err != nil {
				return nil, fmt.Errorf("outbox edge: %w", err)
			}
			out = append(out, e)
		}
		st := p.broker.Stats()
		for _, c := range consumerNames {
			out = append(out, Edge{Pipeline: p.Kind, From: "broker", To: c, Queued: st.Queued[c], Unacked: st.InFlight[c]})
		}
	}
	return out, nil
}
