package deploy

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/jetstream"
)

// link is the deployment's hold on its broker, apart from its API: the API
// takes payments on PostgreSQL alone, and the relays and consumers run only
// once the broker has answered. Until then (a broker away at the start) it
// opens the stream in the background; after, it says when the broker is
// lost and when it is back, and the relays publish only while it is up.
// An outage is the broker's, not a message's: a relay whose publish finds
// the broker gone hands its rows back (their attempt undone, no backoff
// scheduled) and waits here, and when the broker answers again every
// pending row is claimed at once.
type link struct {
	// open opens the broker (its stream and subscriptions); nil when it
	// was open before Launch.
	open  func(context.Context) (Broker, error)
	log   *slog.Logger
	clock engine.Clock
	// probe is how often a broker that is down (or not opened yet) is
	// asked again.
	probe time.Duration
	// said is the last failure to open that was logged, as sayKey has it.
	said string

	mu      sync.Mutex
	b       Broker
	js      *jetstream.Broker // b, when it is JetStream
	up      bool
	since   time.Time // when up last changed, or the start
	cause   error     // why it is down
	changed chan struct{}
	lost    chan struct{} // a relay saw the broker fail; buffered 1
}

func newLink(b Broker, open func(context.Context) (Broker, error), away error, log *slog.Logger, clock engine.Clock) *link {
	l := &link{open: open, log: log, clock: clock, probe: 200 * time.Millisecond, since: clock.Now(),
		changed: make(chan struct{}), lost: make(chan struct{}, 1)}
	if b != nil {
		l.b, l.up = b, true
		l.js, _ = b.(*jetstream.Broker)
	} else {
		l.cause = errNotOpened
	}
	if away != nil {
		l.cause, l.said = away, sayKey(away)
	}
	return l
}

// errNotOpened is why the broker is down before it first answered.
var errNotOpened = errors.New("the broker has not answered since the start: its stream is not opened yet")

// BrokerState is what the deployment knows of its broker now.
type BrokerState struct {
	Up bool
	// Opened says the stream was opened (the broker answered once).
	Opened bool
	// Since is when Up last changed (the start, while never opened).
	Since time.Time
	// Cause is why it is down.
	Cause error
}

func (l *link) state() BrokerState {
	l.mu.Lock()
	defer l.mu.Unlock()
	return BrokerState{Up: l.up, Opened: l.b != nil, Since: l.since, Cause: l.cause}
}

// broker is the broker once opened, nil before.
func (l *link) broker() (Broker, *jetstream.Broker) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b, l.js
}

// set records a change of state and wakes whoever waits on one.
func (l *link) set(up bool, cause error) (was BrokerState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	was = BrokerState{Up: l.up, Opened: l.b != nil, Since: l.since, Cause: l.cause}
	if l.up == up {
		return was
	}
	l.up, l.cause, l.since = up, cause, l.clock.Now()
	close(l.changed)
	l.changed = make(chan struct{})
	return was
}

// awaitUp returns the broker once it is up, or nil when ctx ends.
func (l *link) awaitUp(ctx context.Context) Broker {
	for {
		l.mu.Lock()
		b, up, ch := l.b, l.up, l.changed
		l.mu.Unlock()
		if up {
			return b
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ch:
		}
	}
}

// awaitOpened returns the broker once it was opened, or nil when ctx ends.
func (l *link) awaitOpened(ctx context.Context) Broker {
	for {
		l.mu.Lock()
		b, ch := l.b, l.changed
		l.mu.Unlock()
		if b != nil {
			return b
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ch:
		}
	}
}

// failed is a relay's: its publish, begun at began, found the broker
// down. A publish begun before the broker was last back says nothing new:
// it was in flight through the outage (it waited out its timeout), and
// taken as news it logged 'broker lost' and 'back' again a few
// milliseconds after the broker came back, a pair per such publish.
func (l *link) failed(err error, began time.Time) {
	l.mu.Lock()
	stale := l.up && began.Before(l.since)
	l.mu.Unlock()
	if stale {
		return
	}
	if l.set(false, err).Up {
		l.log.Warn("broker lost: publishing paused, payments wait in the outbox", "cause", err.Error())
	}
	select {
	case l.lost <- struct{}{}:
	default:
	}
}

// run opens the broker if it is not yet, then watches it until ctx ends:
// lost when its client is disconnected or a relay's publish failed on it,
// back when it answers a stream info again, naming a leader on a cluster.
func (l *link) run(ctx context.Context) {
	if !l.opened(ctx) {
		return
	}
	tick := time.NewTicker(l.probe)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-l.lost:
		}
		st := l.state()
		_, js := l.broker()
		if js == nil {
			continue // a broker that is not JetStream is taken to be up
		}
		switch {
		case st.Up && !js.Connected():
			if l.set(false, errDisconnected).Up {
				l.log.Warn("broker lost: publishing paused, payments wait in the outbox", "cause", errDisconnected.Error())
			}
		case !st.Up && !js.Connected():
			// Not asked: the client's own error for a request it cannot
			// send ("outbound buffer limit exceeded") says less than this.
			l.mu.Lock()
			l.cause = errDisconnected
			l.mu.Unlock()
		case !st.Up:
			cctx, cancel := context.WithTimeout(ctx, 2*l.probe+time.Second)
			s, err := js.StreamInfo(cctx)
			cancel()
			if err == nil && s.Cluster != "" && s.Leader == "" {
				err = errNoLeader
			}
			if err != nil {
				l.mu.Lock()
				l.cause = err
				l.mu.Unlock()
				continue
			}
			was := l.set(true, nil)
			l.log.Info("broker back: publishing the outbox", "down_for", l.clock.Now().Sub(was.Since).Round(time.Millisecond).String(),
				"stream", js.Stream())
		}
	}
}

var errDisconnected = errors.New("not connected to any server of the broker's (the client keeps trying)")

// errNoLeader is why a cluster's broker is down while it answers: its
// stream has no leader yet to store a publish (a majority just back elects
// one), and a publish would wait out its timeout.
var errNoLeader = errors.New("the stream has no leader yet: the cluster is electing one")

// opened opens the broker if it is not open yet, trying again (after an
// outage every probe, after a refusal every second; a failure is logged
// when it says something new) until it answers or ctx ends; false when ctx
// ended first.
func (l *link) opened(ctx context.Context) bool {
	if b, _ := l.broker(); b != nil {
		return true
	}
	for {
		b, err := l.open(ctx)
		if err == nil {
			l.mu.Lock()
			l.b = b
			l.js, _ = b.(*jetstream.Broker)
			l.mu.Unlock()
			if l.js != nil {
				if s := l.js.Settings(); s.Cluster != "" && s.Leader == "" {
					// Opened, but nothing can be stored yet: the run's
					// probe says back once the stream has a leader.
					l.mu.Lock()
					l.cause = errNoLeader
					l.mu.Unlock()
					l.log.Info("stream opened with no leader yet: relays and consumers start once the cluster elects one",
						"stream", l.js.Stream(), "stream_was", l.js.Opened())
					return true
				}
			}
			was := l.set(true, nil)
			args := []any{"waited", l.clock.Now().Sub(was.Since).Round(time.Millisecond).String()}
			if l.js != nil {
				args = append(args, "stream", l.js.Stream(), "stream_was", l.js.Opened())
			}
			l.log.Info("broker up: stream opened, relays and consumers start", args...)
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		l.mu.Lock()
		l.cause = err
		l.mu.Unlock()
		if key := sayKey(err); key != l.said {
			l.said = key
			level := slog.LevelWarn
			if !errors.Is(err, engine.ErrBrokerDown) {
				level = slog.LevelError // not an outage: it will not pass by waiting
			}
			l.log.Log(ctx, level, "broker not opened yet: payments wait in the outbox; trying again", "cause", err.Error())
		}
		wait := time.Second // a refusal: asked again, it will not pass soon
		if errors.Is(err, engine.ErrBrokerDown) {
			wait = l.probe
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(wait):
		}
	}
}

// sayKey is what a failure to open is logged by: an outage is one state,
// whatever its words (a cluster without its quorum answers 503 one try and
// nothing the next); a refusal is one per message, since each says
// something else to fix.
func sayKey(err error) string {
	if errors.Is(err, engine.ErrBrokerDown) {
		return "broker down"
	}
	return err.Error()
}

// publisher is what a relay publishes through: the broker's publishes, and
// on a failure that is the broker's (engine.ErrBrokerDown) it pauses the
// relay first (ends its context) and tells the link. The relay, finding its
// context ended, hands back the rows it has not published (release_leases:
// their attempt undone, no backoff) and ends; its supervisor starts it
// again once the broker is back.
type publisher struct {
	b     Broker
	l     *link
	pause context.CancelFunc
}

func (p publisher) check(err error, began time.Time) {
	if err != nil && errors.Is(err, engine.ErrBrokerDown) {
		p.pause()
		p.l.failed(err, began)
	}
}

func (p publisher) Publish(ctx context.Context, msg engine.Message) error {
	began := p.l.clock.Now()
	err := p.b.Publish(ctx, msg)
	p.check(err, began)
	return err
}

// PublishDedup keeps the broker's answer on duplicates (engine.DedupPublisher).
func (p publisher) PublishDedup(ctx context.Context, msg engine.Message) (bool, error) {
	d, ok := p.b.(engine.DedupPublisher)
	if !ok {
		return false, p.Publish(ctx, msg)
	}
	began := p.l.clock.Now()
	dup, err := d.PublishDedup(ctx, msg)
	p.check(err, began)
	return dup, err
}

// PublishBatch keeps the broker's batches (engine.BatchPublisher).
func (p publisher) PublishBatch(ctx context.Context, msgs []engine.Message) []engine.PublishResult {
	var out []engine.PublishResult
	began := p.l.clock.Now()
	if bp, ok := p.b.(engine.BatchPublisher); ok {
		out = bp.PublishBatch(ctx, msgs)
	} else {
		out = make([]engine.PublishResult, len(msgs))
		for i, m := range msgs {
			out[i].Err = p.b.Publish(ctx, m)
		}
	}
	for _, r := range out {
		if r.Err != nil && errors.Is(r.Err, engine.ErrBrokerDown) {
			p.check(r.Err, began)
			break
		}
	}
	return out
}
