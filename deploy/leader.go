package deploy

import (
	"context"
	"time"
)

// leaderEvery is how often the stream's leader is asked for on a cluster:
// an election takes a second or more, so a change is said within about
// one, at the cost of one small request a second.
const leaderEvery = time.Second

// watchLeader says, a line per change, who leads the stream on a cluster:
// changed (the old leader died or stepped down and another was elected),
// lost (none at two looks in a row: the cluster lost its quorum, nothing is
// stored until an election), elected (a leader after lost). It asks only while the client is
// connected: a client cut off from every server is the link's to say
// (broker lost), not a leader's. A single server has no elections: it
// asks nothing. It runs until ctx ends.
func (l *link) watchLeader(ctx context.Context, every time.Duration) {
	if l.awaitOpened(ctx) == nil {
		return
	}
	_, js := l.broker()
	if js == nil || js.Settings().Cluster == "" {
		return
	}
	leader := js.Settings().Leader
	missing := 0 // looks in a row that found no leader
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if !js.Connected() {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, every+time.Second)
		s, err := js.StreamInfo(cctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		now := s.Leader
		if now == "" {
			// Said from the second look in a row: a stream just made, or
			// one whose leader steps down, names none for a moment.
			if missing++; missing == 2 && leader != "" {
				cause := "the stream's info names no leader"
				if err != nil {
					cause = err.Error()
				}
				l.log.Warn("stream leader lost: nothing is stored until the cluster elects one (a majority of its servers must be up)",
					"stream", js.Stream(), "was", leader, "cause", cause)
				leader = ""
			}
			continue
		}
		missing = 0
		if now == leader {
			continue
		}
		switch {
		case leader == "":
			l.log.Info("stream leader elected", "stream", js.Stream(), "leader", now)
		default:
			l.log.Info("stream leader changed", "stream", js.Stream(), "leader", now, "was", leader)
		}
		leader = now
	}
}
