package jetstream

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// retention is the stream's retention policy: interest, unless the broker
// purges what every consumer acked itself (Config.PurgeAcked).
func retention(purgeAcked bool) jetstream.RetentionPolicy {
	if purgeAcked {
		return jetstream.LimitsPolicy
	}
	return jetstream.InterestPolicy
}

// purger runs one purge at a time in the background; a purge asked for
// while one runs makes it go round once more, so the last acks are purged
// too, at most one round every purgeEvery: acks come in batches many times
// a second, and each round is three JetStream API requests (stream info,
// the consumers' list with their infos, the purge) whose JSON the server
// and the client build and parse: unpaced, under load, they were most of
// serve --broker nats's allocations, and so of its heap's growth between
// collections. A purge that waits a little is as big as the
// acks it waited for: one synced write all the same.
type purger struct {
	mu      sync.Mutex
	running bool
	again   bool
	wg      sync.WaitGroup
}

// purgeAckedSoon purges, in the background, what every consumer has acked,
// when the broker keeps its stream that way (Config.PurgeAcked).
func (b *Broker) purgeAckedSoon() {
	if !b.cfg.PurgeAcked {
		return
	}
	p := &b.purge
	p.mu.Lock()
	defer p.mu.Unlock()
	p.again = true
	if p.running {
		return
	}
	p.running = true
	p.wg.Go(func() {
		for {
			p.mu.Lock()
			if !p.again {
				p.running = false
				p.mu.Unlock()
				return
			}
			p.again = false
			p.mu.Unlock()
			// Twice: an ack the server has read (the batch's flush) may not
			// have moved its consumer's floor yet at the first look; by the
			// second, a few round trips later, it has. A failure is left for
			// the next acks' purge: the messages stay, nothing is lost.
			for range 2 {
				if err := b.purgeAcked(context.Background()); err != nil {
					break
				}
			}
			// The pace is a wait against the network, like the purge's
			// own, so a context deadline and not the Clock (which stamps
			// messages and may be a test's, standing still).
			pace, cancel := context.WithTimeout(context.Background(), purgeEvery)
			<-pace.Done()
			cancel()
		}
	})
}

// purgeEvery paces the purges: a message acked by every consumer leaves
// the stream within about this long (and two round trips).
const purgeEvery = 100 * time.Millisecond

// wait waits for a purge that runs.
func (p *purger) wait() { p.wg.Wait() }

// purgeAcked removes from the stream every message below the lowest ack
// floor of its consumers (every one the server lists): each consumer has
// acked all of those it was to get. A stream with no consumer keeps all.
func (b *Broker) purgeAcked(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	st, err := b.js.Stream(cctx, b.stream)
	if err != nil {
		return brokerErr("purge acked: stream "+b.stream, err)
	}
	floor, consumers := uint64(math.MaxUint64), 0
	list := st.ListConsumers(cctx)
	for ci := range list.Info() {
		floor = min(floor, ci.AckFloor.Stream)
		consumers++
	}
	if err := list.Err(); err != nil {
		return brokerErr("purge acked: consumers of "+b.stream, err)
	}
	first := st.CachedInfo().State.FirstSeq
	if consumers == 0 || floor < first {
		return nil
	}
	if err := st.Purge(cctx, jetstream.WithPurgeSequence(floor+1)); err != nil {
		return brokerErr("purge acked: "+b.stream, err)
	}
	b.count(&b.stats.Purges)
	return nil
}
