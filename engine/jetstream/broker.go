package jetstream

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/outboxlab/outboxlab/engine"
)

// Config configures a Broker. The zero value works.
type Config struct {
	// Pipeline names the stream (one per pipeline): stream OUTBOXLAB_<PIPELINE>
	// on subjects outboxlab.<pipeline>.<topic>; default "outbox".
	Pipeline string
	// Stream names the stream instead of OUTBOXLAB_<PIPELINE> (its
	// subjects stay the pipeline's).
	Stream string
	// Owner, if set, marks the stream as one deployment's: its
	// Description says so (OwnerMark), which every server keeps (stream
	// metadata exists only from nats-server 2.10). Open creates, updates
	// or (Fresh) deletes only a stream whose mark is Owner's, and refuses
	// any other with a *NotOwnedError.
	Owner string
	// Adopt lets Open mark as Owner's a stream that has no owner's mark
	// (one an older build made, before streams had owners); a stream
	// another owner marked is refused all the same.
	Adopt bool
	// Duplicates is the stream's dedup window: a publish whose Nats-Msg-Id
	// the stream took within it is acked as a duplicate and dropped;
	// default 2m (JetStream's own default).
	Duplicates time.Duration
	// AckWait is how long a delivery may stay unacknowledged before
	// JetStream hands it out again; default 30s.
	AckWait time.Duration
	// MaxDeliver bounds the deliveries of one message to one consumer;
	// default 0 means unlimited.
	MaxDeliver int
	// FetchBatch is how many messages one pull asks for; the rest wait in
	// the broker for the next Receive (their AckWait runs); default 16.
	FetchBatch int
	// Timeout bounds each request to the server (publish, pull, ack): past
	// it JetStream counts as down; default 2s.
	Timeout time.Duration
	// Name is the actor in hook events; default "broker".
	Name string
	// Hook is called at broker.delivered, like the in-process broker's.
	Hook engine.Hook
	// Clock stamps PublishedAt and DeliveredAt; default engine.SystemClock.
	Clock engine.Clock
	// Replicas is how many servers hold a copy of the stream; 0 means
	// DefaultReplicas (3 on a cluster of three or more, else 1), and an
	// existing stream with more keeps them. A stream that has another count
	// is updated in place, its messages kept.
	Replicas int
	// Fresh deletes the pipeline's stream (its messages and consumers)
	// before creating it: a run asked to start over (--fresh) starts with
	// a broker that holds nothing of an earlier run's. Without it Open
	// never deletes: what the stream holds was published and is owed.
	Fresh bool
	// PurgeAcked keeps the rule "a message leaves the stream once every
	// consumer has acked it" without JetStream's interest retention, which
	// removes each message as its last ack comes: on a single server under
	// SyncAlways that is a synced write per ack, holding the store's lock
	// that publishes wait for (the single node's limit). The
	// stream has limits retention instead, and after acks the broker purges
	// every message below the lowest ack floor of the stream's consumers,
	// all of them, not only this broker's: one synced write per purge. A
	// message goes a moment after its last ack instead of at it, and a
	// stream with no consumer keeps what it holds (interest retention drops
	// it). A stream an earlier run made with interest retention is changed
	// to limits in place, every message kept; Subscribe purges what its
	// consumers acked before. serve --broker and live turn it on; off by
	// default (interest retention).
	PurgeAcked bool
	// CountByID keeps Stats.PublishesByID and DuplicatesByID, a count per
	// event id: a test's oracle. They grow with every message published and
	// forget none, so a broker that runs for long (a deployment) leaves it
	// off and they stay nil; Published and Duplicates count either way.
	CountByID bool
}

// Broker is NATS JetStream behind the engine's Publisher and Subscriber:
// one stream per pipeline, a durable pull consumer with explicit acks per
// subscription. It is safe for concurrent use.
type Broker struct {
	cfg     Config
	nc      *nats.Conn
	js      jetstream.JetStream
	stream  string
	subject string // outboxlab.<pipeline>
	// settings are the stream's as Open left them (Settings).
	settings StreamSettings
	// atomic says the stream takes atomic batches (PublishBatch).
	atomic bool
	// opened says what Open did to the stream (Opened).
	opened string

	mu      sync.Mutex
	subs    map[string]*subscription
	out     map[uint64]jetstream.Msg // deliveries handed out, not settled
	tag     uint64
	stats   Stats
	changes engine.Signal
	wake    *nats.Subscription
	// purge runs PurgeAcked's purges one at a time (purge.go).
	purge purger
}

type subscription struct {
	name, topic string
	consumer    jetstream.Consumer
	mu          sync.Mutex // one pull at a time; guards buf
	buf         []jetstream.Msg
}

// Stats are what the broker saw, for tests and an oracle.
type Stats struct {
	Published   int // publishes JetStream stored
	Duplicates  int // publishes JetStream acked as duplicates and dropped (inside the window)
	Delivered   int
	Redelivered int // deliveries whose count was > 1
	Acked       int
	Nacked      int
	Rejected    int
	// AtomicBatches counts the atomic batches JetStream stored whole,
	// AtomicRefused those it refused (PublishBatch sent them again message
	// by message).
	AtomicBatches, AtomicRefused int
	// Pulls counts the no_wait pulls sent to JetStream (each a round trip).
	Pulls int
	// Purges counts the purges of acked messages (Config.PurgeAcked).
	Purges int
	// PublishesByID counts stored publishes per event id (> 1: the window
	// had passed when it came again); DuplicatesByID the dropped ones. Nil
	// unless Config.CountByID.
	PublishesByID, DuplicatesByID map[uuid.UUID]int
}

// PubAck is JetStream's answer to a publish.
type PubAck struct {
	Stream    string
	Sequence  uint64
	Duplicate bool // the stream already had this id inside its window: dropped
}

// Open creates the pipeline's stream on nc if it is missing, updates it in
// place if its settings differ (ensureStream), and returns its broker; it
// deletes it only when cfg.Fresh asks. The caller owns nc.
func Open(ctx context.Context, nc *nats.Conn, cfg Config) (*Broker, error) {
	if cfg.Pipeline == "" {
		cfg.Pipeline = "outbox"
	}
	if cfg.Duplicates <= 0 {
		cfg.Duplicates = 2 * time.Minute
	}
	if cfg.AckWait <= 0 {
		cfg.AckWait = 30 * time.Second
	}
	if cfg.MaxDeliver <= 0 {
		cfg.MaxDeliver = -1
	}
	if cfg.FetchBatch <= 0 {
		cfg.FetchBatch = 16
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 2 * time.Second
	}
	if cfg.Name == "" {
		cfg.Name = "broker"
	}
	if cfg.Clock == nil {
		cfg.Clock = engine.SystemClock{}
	}
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(cfg.Timeout))
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	token := subjectToken(cfg.Pipeline)
	b := &Broker{cfg: cfg, nc: nc, js: js, stream: StreamName(cfg), subject: "outboxlab." + token,
		subs: map[string]*subscription{}, out: map[uint64]jetstream.Msg{}}
	if cfg.CountByID {
		b.stats.PublishesByID, b.stats.DuplicatesByID = map[uuid.UUID]int{}, map[uuid.UUID]int{}
	}
	cctx, cancel := context.WithTimeout(ctx, 5*cfg.Timeout)
	defer cancel()
	if err := checkOwner(cctx, js, b.stream, cfg.Owner, cfg.Adopt); err != nil {
		return nil, err
	}
	if cfg.Fresh {
		if err := js.DeleteStream(cctx, b.stream); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
			return nil, brokerErr("delete stream "+b.stream, err)
		}
	}
	auto := cfg.Replicas <= 0
	if auto {
		cfg.Replicas = DefaultReplicas(nc)
	}
	si, opened, err := ensureStream(cctx, js, jetstream.StreamConfig{
		Name:        b.stream,
		Description: OwnerMark(cfg.Owner),
		Subjects:    []string{b.subject + ".>"},
		Storage:     jetstream.FileStorage, // a restart keeps what was published
		Duplicates:  cfg.Duplicates,
		// A message goes once every consumer has acked it: the store holds
		// what is still owed, not all that ever passed (a serve left
		// running would grow it without bound). The dedup window is kept
		// apart from the messages, so it works the same.
		Retention: retention(cfg.PurgeAcked),
		Replicas:  cfg.Replicas,
		// PublishBatch sends a relay's batch as one atomic batch: one sync
		// for it instead of one per message. A server older than 2.12 does
		// not know the setting and leaves it off (b.atomic): asked of it,
		// every Open would find the stream differing and update it in
		// place, a write of the cluster's meta leader at each start, which
		// a cluster without its quorum refuses.
		AllowAtomicPublish: knowsAtomicBatches(nc.ConnectedServerVersion()),
	}, auto)
	if err != nil {
		return nil, err
	}
	b.opened = opened
	if cfg.Fresh {
		b.opened = "deleted (Fresh) and " + opened
	}
	b.cfg.Replicas = max(si.Config.Replicas, 1)
	b.settings = settingsOf(si, b.cfg)
	b.atomic = si.Config.AllowAtomicPublish
	return b, nil
}

// subjectToken makes a pipeline name a single subject token (no dots,
// wildcards or spaces), also valid in a stream name.
func subjectToken(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '_'
	}, s)
}

// StreamName is the name of the stream Open opens for cfg: cfg.Stream, or
// OUTBOXLAB_<PIPELINE> (default pipeline "outbox").
func StreamName(cfg Config) string {
	if cfg.Stream != "" {
		return cfg.Stream
	}
	if cfg.Pipeline == "" {
		cfg.Pipeline = "outbox"
	}
	return "OUTBOXLAB_" + strings.ToUpper(subjectToken(cfg.Pipeline))
}

// Stream is the stream's name.
func (b *Broker) Stream() string { return b.stream }

// Opened says what Open did to the stream: OpenedCreated, OpenedUpdated
// and what changed, or OpenedKept.
func (b *Broker) Opened() string { return b.opened }

// Connected reports whether the client is connected to a server now (no
// round trip): false while it reconnects.
func (b *Broker) Connected() bool { return b.nc.IsConnected() }

// Config is the configuration in force, defaults filled in.
func (b *Broker) Config() Config { return b.cfg }

func (b *Broker) topicSubject(topic string) string {
	if topic == "" {
		topic = engine.TopicPayments
	}
	return b.subject + "." + subjectToken(topic)
}

// Subscribe creates (or updates) the durable pull consumer name on topic:
// explicit acks, AckWait and MaxDeliver from the config, every message of
// the stream from its start. Subscribing again is a no-op.
func (b *Broker) Subscribe(ctx context.Context, topic, name string) error {
	b.mu.Lock()
	if s, ok := b.subs[name]; ok {
		b.mu.Unlock()
		if s.topic != topic {
			return fmt.Errorf("subscribe %s to %s: already subscribed to %s", name, topic, s.topic)
		}
		return nil
	}
	b.mu.Unlock()
	cctx, cancel := context.WithTimeout(ctx, 5*b.cfg.Timeout)
	defer cancel()
	c, err := b.js.CreateOrUpdateConsumer(cctx, b.stream, jetstream.ConsumerConfig{
		Durable:       subjectToken(name),
		FilterSubject: b.topicSubject(topic),
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       b.cfg.AckWait,
		MaxDeliver:    b.cfg.MaxDeliver,
		DeliverPolicy: jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return brokerErr("subscribe "+name, err)
	}
	b.mu.Lock()
	if _, ok := b.subs[name]; !ok {
		b.subs[name] = &subscription{name: name, topic: topic, consumer: c}
	}
	b.mu.Unlock()
	// What every consumer acked before this start (a crash between the last
	// acks and their purge) goes now, not at the next ack.
	b.purgeAckedSoon()
	return nil
}

// Publish stores msg in the stream with Nats-Msg-Id = msg.ID and waits for
// JetStream's ack. A duplicate ack is no error (the stream holds the
// message: what the relay needs to mark it), and is counted in Stats.
func (b *Broker) Publish(ctx context.Context, msg engine.Message) error {
	_, err := b.PublishAck(ctx, msg)
	return err
}

// PublishDedup is Publish that says whether JetStream acked msg as a
// duplicate (engine.DedupPublisher: the relay reports it).
func (b *Broker) PublishDedup(ctx context.Context, msg engine.Message) (bool, error) {
	ack, err := b.PublishAck(ctx, msg)
	return ack.Duplicate, err
}

// PublishAck is Publish that returns JetStream's ack, Duplicate included.
func (b *Broker) PublishAck(ctx context.Context, msg engine.Message) (PubAck, error) {
	what := "publish " + msg.ID.String()
	if err := ctx.Err(); err != nil {
		return PubAck{}, fmt.Errorf("%s: %w", what, err)
	}
	if !b.nc.IsConnected() {
		return PubAck{}, brokerErr(what, nats.ErrDisconnected)
	}
	m, err := encode(b.topicSubject(msg.Topic), msg, b.cfg.Clock.Now())
	if err != nil {
		return PubAck{}, err
	}
	cctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	ack, err := b.js.PublishMsg(cctx, m)
	if err != nil {
		if ctx.Err() != nil {
			return PubAck{}, fmt.Errorf("%s: %w", what, ctx.Err())
		}
		return PubAck{}, brokerErr(what, err)
	}
	b.mu.Lock()
	b.stats.countPublish(msg.ID, ack.Duplicate)
	b.mu.Unlock()
	if !ack.Duplicate {
		// Stored now: a consumer woken by the plain subscription (see
		// Changed) may have pulled before the stream stored it.
		b.signal()
	}
	return PubAck{Stream: ack.Stream, Sequence: ack.Sequence, Duplicate: ack.Duplicate}, nil
}

// countPublish counts a publish JetStream stored, or dropped as a
// duplicate; per id only when the maps exist (Config.CountByID). b.mu is held.
func (st *Stats) countPublish(id uuid.UUID, duplicate bool) {
	if duplicate {
		st.Duplicates++
		if st.DuplicatesByID != nil {
			st.DuplicatesByID[id]++
		}
		return
	}
	st.Published++
	if st.PublishesByID != nil {
		st.PublishesByID[id]++
	}
}

// Stats returns a copy of the broker's counters.
func (b *Broker) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.stats
	st.PublishesByID = maps.Clone(b.stats.PublishesByID)
	st.DuplicatesByID = maps.Clone(b.stats.DuplicatesByID)
	return st
}

// Pending asks JetStream what the subscription still holds: messages not
// delivered yet, and delivered but not acknowledged (those waiting in this
// broker's pull buffer included).
func (b *Broker) Pending(ctx context.Context, name string) (waiting, unacked int, err error) {
	s, err := b.sub(name)
	if err != nil {
		return 0, 0, err
	}
	cctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	info, err := s.consumer.Info(cctx)
	if err != nil {
		return 0, 0, brokerErr("consumer info "+name, err)
	}
	return int(info.NumPending), info.NumAckPending, nil
}

// Info is what JetStream holds for the pipeline, asked of the server: the
// stream's messages (those some consumer has not acked yet: interest
// retention removes the others at their last ack, PurgeAcked a moment
// after) and, per subscription, its backlog.
type Info struct {
	Stream   string
	Messages uint64 // messages in the stream
	Bytes    uint64
	// FirstSeq and LastSeq are the stream's first message held and last
	// one stored: LastSeq counts every message the stream ever stored
	// (duplicates dropped inside the window are not stored).
	FirstSeq, LastSeq uint64
	Consumers         map[string]ConsumerInfo
}

// ConsumerInfo is one durable consumer's backlog, as JetStream counts it.
type ConsumerInfo struct {
	Waiting     int // not delivered yet
	Unacked     int // delivered, not acknowledged (this broker's pull buffer included)
	Redelivered int // delivered more than once and not acknowledged yet
}

// Info asks the server for the stream's and every subscription's figures.
// A server that does not answer is engine.ErrBrokerDown.
func (b *Broker) Info(ctx context.Context) (Info, error) {
	cctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	st, err := b.js.Stream(cctx, b.stream)
	if err != nil {
		return Info{}, brokerErr("stream info "+b.stream, err)
	}
	si, err := st.Info(cctx)
	if err != nil {
		return Info{}, brokerErr("stream info "+b.stream, err)
	}
	out := Info{Stream: b.stream, Messages: si.State.Msgs, Bytes: si.State.Bytes, FirstSeq: si.State.FirstSeq, LastSeq: si.State.LastSeq,
		Consumers: map[string]ConsumerInfo{}}
	b.mu.Lock()
	subs := make([]*subscription, 0, len(b.subs))
	for _, s := range b.subs {
		subs = append(subs, s)
	}
	b.mu.Unlock()
	for _, s := range subs {
		ci, err := s.consumer.Info(cctx)
		if err != nil {
			return Info{}, brokerErr("consumer info "+s.name, err)
		}
		out.Consumers[s.name] = ConsumerInfo{Waiting: int(ci.NumPending), Unacked: ci.NumAckPending, Redelivered: ci.NumRedelivered}
	}
	return out, nil
}

func (b *Broker) sub(name string) (*subscription, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.subs[name]
	if !ok {
		return nil, fmt.Errorf("receive on %s: %w", name, engine.ErrUnknownSubscription)
	}
	return s, nil
}

// Close stops the wake-up subscription and waits for a purge that runs
// (Config.PurgeAcked); the connection is the caller's.
func (b *Broker) Close() {
	b.mu.Lock()
	if b.wake != nil {
		_ = b.wake.Unsubscribe()
		b.wake = nil
	}
	b.mu.Unlock()
	b.purge.wait()
}
