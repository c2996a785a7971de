package deploy

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/outboxlab/outboxlab/engine"
)

// retrySummaryEvery is how often the retries scheduled meanwhile are
// logged, in one line: a message failing is not worth a line each at
// info, a rate of them is.
const retrySummaryEvery = 10 * time.Second

// watch is actor's hook h with what the log says of it: a dead letter (a
// message given up on: a line each, at warn, since an operator must
// requeue it) and the retries scheduled, counted for summarise.
func (d *Deployment) watch(actor string, h engine.Hook) engine.Hook {
	return func(ctx context.Context, ev engine.Event) error {
		switch ev.Checkpoint {
		case engine.RelayDeadLettered:
			for _, id := range ev.MessageIDs {
				d.o.Logger.Warn("dead letter: a message failed its last attempt and is not published; requeue it once its cause is fixed",
					"actor", actor, "message", id.String(), "detail", ev.Detail.String())
			}
		case engine.RelayRetryScheduled:
			d.retries.Add(int64(len(ev.MessageIDs)))
			d.lastRetry.Store(ev.Detail.String())
		}
		return h(ctx, ev)
	}
}

// summarise logs, every retrySummaryEvery until ctx ends, how many retries
// the relays scheduled meanwhile and the last one's cause (nothing when
// none).
func (d *Deployment) summarise(ctx context.Context, retries *atomic.Int64) {
	tick := time.NewTicker(retrySummaryEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if n := retries.Swap(0); n > 0 {
			last, _ := d.lastRetry.Load().(string)
			d.o.Logger.Info("retries scheduled: publishes that failed and wait for their backoff", "count", n, "within", retrySummaryEvery.String(),
				"last", last)
		}
	}
}
