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
	settle  int // rounds gone waiting for a floor to catch up, since one that did
	wg      sync.WaitGroup
}

// maxSettleRounds bounds the rounds a purge goes on waiting for the
// consumers' floors to reach what they were delivered: about 30 s.
const maxSettleRounds = 300

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
			settling := false
			for range 2 {
				var err error
				if settling, err = b.purgeAcked(context.Background()); err != nil {
					break
				}
			}
			// Everything was delivered yet messages stay above a floor:
			// an ack is on its way (a redelivery's, a failover's), and
			// with no more acks to come nothing else would purge them.
			// Round again, a bounded number of times.
			p.mu.Lock()
			if settling && p.settle < maxSettleRounds {
				p.settle++
				p.again = true
			} else if !settling {
				p.settle = 0
			}
			p.mu.Unlock()
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
// settling says messages stay above the floor though every consumer has
// been delivered everything: an ack not yet counted.
func (b *Broker) purgeAcked(ctx context.Context) (settling bool, err error) {
	cctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	st, err := b.js.Stream(cctx, b.stream)
	if err != nil {
		return false, brokerErr("purge acked: stream "+b.stream, err)
	}
	floor, consumers, delivered := uint64(math.MaxUint64), 0, true
	listed := map[string]bool{}
	list := st.ListConsumers(cctx)
	for ci := range list.Info() {
		floor = min(floor, ci.AckFloor.Stream)
		consumers++
		listed[ci.Name] = true
		delivered = delivered && ci.NumPending == 0
	}
	if err := list.Err(); err != nil {
		return false, brokerErr("purge acked: consumers of "+b.stream, err)
	}
	state := st.CachedInfo().State
	// A consumer the list leaves out has a floor nobody read: a cluster
	// lists only the consumers whose leader answered in time, and while
	// one is being elected (its server died) it is left out, no error
	// said. The others' floor would purge what it has not acked. Round
	// again, as for an ack not yet counted, until every consumer is there.
	if consumers < state.Consumers || !b.subscribedIn(listed) {
		return true, nil
	}
	settling = consumers > 0 && delivered && state.Msgs > 0 && floor < state.LastSeq
	if consumers == 0 || floor < state.FirstSeq {
		return settling, nil
	}
	if err := st.Purge(cctx, jetstream.WithPurgeSequence(floor+1)); err != nil {
		return settling, brokerErr("purge acked: "+b.stream, err)
	}
	b.count(&b.stats.Purges)
	return settling, nil
}

// subscribedIn says every consumer this broker subscribed is in listed
// (by durable name).
func (b *Broker) subscribedIn(listed map[string]bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for name := range b.subs {
		if !listed[subjectToken(name)] {
			return false
		}
	}
	return true
}
