package engine

import (
	"container/heap"
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Publisher accepts messages for delivery. A nil error means the broker has
// the message durably (here: in memory for the broker's life).
type Publisher interface {
	Publish(ctx context.Context, msg Message) error
}

// DedupPublisher is a Publisher whose broker drops a publish of a message id
// it took within a window, and says so in its answer (JetStream's
// Nats-Msg-Id and Duplicates window; the in-process broker's DedupWindow).
// duplicate is true when this copy was dropped; either way the broker holds
// the message, so the relay marks the row.
type DedupPublisher interface {
	PublishDedup(ctx context.Context, msg Message) (duplicate bool, err error)
}

// BatchPublisher publishes a batch without waiting for each answer in turn
// (JetStream's asynchronous publish: send them all, then collect the acks),
// and answers for each message, in order. A relay with PublishBatches uses
// it; a simulator's relay publishes one message at a time so that it can
// stop between two.
type BatchPublisher interface {
	PublishBatch(ctx context.Context, msgs []Message) []PublishResult
}

// BatchAcker acknowledges a batch of deliveries and waits once for the
// broker to have every ack, instead of one round trip per delivery; it
// answers for each delivery, in order. A batch consumer uses it for the
// deliveries it ACKs after its commit when it is not tracing (a traced ACK
// is a span of its own).
type BatchAcker interface {
	AckBatch(ctx context.Context, ds []Delivery) []error
}

// BatchReceiver hands out up to n deliveries available now with one
// request to the broker (JetStream: one pull for n messages), instead of
// one Receive per delivery; none when nothing is available. It never
// blocks. It returns what it handed out and the error that stopped it
// early, if any. A batch consumer's StepBatch uses it.
type BatchReceiver interface {
	ReceiveBatch(ctx context.Context, subscription string, n int) ([]Delivery, error)
}

// PublishResult is a BatchPublisher's answer for one message.
type PublishResult struct {
	Duplicate bool // dropped as a duplicate inside the broker's dedup window
	Err       error
}

// Subscriber hands out deliveries that must be acknowledged. An unacknowledged
// delivery is handed out again after the ack timeout (at-least-once).
type Subscriber interface {
	// Receive returns the next delivery available now on the subscription, or
	// ok == false when there is none. It never blocks.
	Receive(ctx context.Context, subscription string) (d Delivery, ok bool, err error)
	// Ack settles a delivery: the broker forgets the message for that subscription.
	Ack(ctx context.Context, d Delivery) error
	// Nack hands a delivery back, to be delivered again after delay.
	Nack(ctx context.Context, d Delivery, delay time.Duration) error
	// Reject moves a delivery to the subscription's dead letters.
	Reject(ctx context.Context, d Delivery, reason string) error
}

// Delivery is one handing-out of a message to a subscription.
type Delivery struct {
	Message
	Subscription string
	Count        int    // 1 on the first delivery, 2 on the first redelivery, …
	Tag          uint64 // identifies this handing-out for Ack/Nack/Reject
	DeliveredAt  time.Time
}

// BrokerConfig configures a Broker. The zero value works.
type BrokerConfig struct {
	Name       string        // actor name in hook events; default "broker"
	Clock      Clock         // measures ack timeouts; default SystemClock
	Hook       Hook          // called at broker.delivered
	AckTimeout time.Duration // default 30s
	// OrderByKey partitions each subscription by Message.Key (the aggregate
	// id): at most one delivery per key is in flight, so one aggregate's
	// events are processed in the order they were published (S20).
	OrderByKey bool
	// LogLimit bounds Log (oldest entries dropped); 0 means 100000, < 0 unlimited.
	LogLimit int
	// DedupWindow > 0 drops a publish of a message id the broker accepted
	// less than DedupWindow before (on its Clock) and answers it as a
	// duplicate, as JetStream's Duplicates window does with Nats-Msg-Id.
	// The window counts from the accepted publish; after it the same id is
	// accepted again, and only the consumers' inbox stops its effect.
	DedupWindow time.Duration
}

// BrokerLogEntry is one thing the broker did.
type BrokerLogEntry struct {
	Seq          uint64
	At           time.Time
	Kind         string // publish, dedup_drop, deliver, ack, nack, reject, stale_ack
	Subscription string
	MessageID    uuid.UUID
	Delivery     int
	Tag          uint64
}

// BrokerStats are the broker's counters and per-message counts, for an oracle.
type BrokerStats struct {
	Published   int
	Delivered   int // handings-out, redeliveries and duplicates included
	Redelivered int // handings-out with Count > 1
	Duplicated  int // deliveries forced by DuplicateNext
	Acked       int
	Nacked      int
	Rejected    int
	StaleAcks   int
	// DedupDropped counts publishes dropped inside the dedup window.
	DedupDropped int
	// PublishesByID counts accepted publishes per message id (> 1: a duplicate publish).
	PublishesByID map[uuid.UUID]int
	// DeliveriesByID counts handings-out per subscription and message id.
	DeliveriesByID map[string]map[uuid.UUID]int
	// Queued and InFlight count unsettled messages per subscription.
	Queued   map[string]int
	InFlight map[string]int
}

// DeadLetter is a message a consumer rejected.
type DeadLetter struct {
	Delivery Delivery
	Reason   string
	At       time.Time
}

// Broker is an in-process message broker with real at-least-once semantics:
// topics, one subscription per consumer, ack timeouts measured on its Clock,
// redelivery counts, outages and forced duplicates. It is pull-based and never
// starts goroutines, so a simulator driving it step by step stays
// deterministic. It is safe for concurrent use.
type Broker struct {
	cfg BrokerConfig

	mu      sync.Mutex
	down    bool
	dupNext bool
	seq     uint64
	seqLog  uint64
	tag     uint64
	subs    map[string]*subscription
	byTopic map[string][]*subscription
	log     brokerLog
	logHead int
	stats   BrokerStats
	// accepted is when each id was last accepted, with a DedupWindow.
	accepted      map[uuid.UUID]time.Time
	acceptedPrune int // the size at which accepted is next pruned
	changes       Signal
}

type subscription struct {
	name, topic string
	queue       []*brokerEntry // waiting, ordered by (seq, tag)
	inflight    map[uint64]*brokerEntry
	due         deadlineHeap // the in-flight entries, earliest (deadline, tag) first
	keysInFly   map[string]int
	dead        []DeadLetter
}

type brokerEntry struct {
	msg         Message
	seq         uint64
	count       int
	availableAt time.Time
	deadline    time.Time
	forced      bool // a DuplicateNext copy: bypasses key ordering
	tag         uint64
	dueIdx      int // position in the subscription's due heap; -1 when not in flight
}

// deadlineHeap orders in-flight entries by (deadline, tag), so Receive finds
// out in O(1) that nothing expired and requeues expired ones in O(log n) each
// instead of walking every in-flight delivery on every call.
type deadlineHeap []*brokerEntry

func (h deadlineHeap) Len() int { return len(h) }
func (h deadlineHeap) Less(i, j int) bool {
	if c := h[i].deadline.Compare(h[j].deadline); c != 0 {
		return c < 0
	}
	return h[i].tag < h[j].tag
}
func (h deadlineHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].dueIdx, h[j].dueIdx = i, j
}
func (h *deadlineHeap) Push(x any) {
	e := x.(*brokerEntry)
	e.dueIdx = len(*h)
	*h = append(*h, e)
}
func (h *deadlineHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	e.dueIdx = -1
	return e
}

// NewBroker returns an empty broker.
func NewBroker(cfg BrokerConfig) *Broker {
	if cfg.Name == "" {
		cfg.Name = "broker"
	}
	cfg.Clock = clockOrSystem(cfg.Clock)
	if cfg.AckTimeout <= 0 {
		cfg.AckTimeout = 30 * time.Second
	}
	if cfg.LogLimit == 0 {
		cfg.LogLimit = 100000
	}
	b := &Broker{cfg: cfg, subs: map[string]*subscription{}, byTopic: map[string][]*subscription{}}
	b.resetStats()
	return b
}

func (b *Broker) resetStats() {
	b.stats = BrokerStats{PublishesByID: map[uuid.UUID]int{}, DeliveriesByID: map[string]map[uuid.UUID]int{}}
}

// Subscribe creates the named subscription on topic. Messages published to
// the topic from then on are delivered to it; subscribing again with the same
// topic is a no-op.
func (b *Broker) Subscribe(topic, name string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.subs[name]; ok {
		if s.topic != topic {
			return fmt.Errorf("subscribe %s to %s: already subscribed to %s", name, topic, s.topic)
		}
		return nil
	}
	s := &subscription{name: name, topic: topic, inflight: map[uint64]*brokerEntry{}, keysInFly: map[string]int{}}
	b.subs[name] = s
	b.byTopic[topic] = append(b.byTopic[topic], s)
	b.stats.DeliveriesByID[name] = map[uuid.UUID]int{}
	return nil
}

// SetDown takes the broker down (publish, receive and ack fail with
// ErrBrokerDown) or brings it back. Nothing it holds is lost.
func (b *Broker) SetDown(down bool) {
	b.mu.Lock()
	b.down = down
	b.mu.Unlock()
	b.signal()
}

// Down reports whether the broker is down.
func (b *Broker) Down() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.down
}

// DuplicateNext makes the next delivery (on any subscription) be handed out
// twice: the copy is available at once, as a redelivery.
func (b *Broker) DuplicateNext() {
	b.mu.Lock()
	b.dupNext = true
	b.mu.Unlock()
}

// DuplicateArmed reports whether the next delivery will be handed out twice.
func (b *Broker) DuplicateArmed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.dupNext
}

// Changed returns a channel closed the next time something becomes
// deliverable (a publish, a nack, the broker coming back), for wait loops.
func (b *Broker) Changed() <-chan struct{} { return b.changes.Watch() }

// signal wakes whoever waits on a channel Changed returned.
func (b *Broker) signal() { b.changes.Notify() }

// Publish accepts msg for every subscription of its topic. The broker keeps
// msg as given, its Metadata map included (every delivery shares it, read
// only): the caller must not change that map afterwards. Copying it here
// cost the relay a map per message for callers that never touch it again.
func (b *Broker) Publish(ctx context.Context, msg Message) error {
	_, err := b.PublishDedup(ctx, msg)
	return err
}

// PublishDedup is Publish that says whether the broker dropped msg as a
// duplicate inside its DedupWindow (never, without one).
func (b *Broker) PublishDedup(ctx context.Context, msg Message) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	b.mu.Lock()
	if b.down {
		b.mu.Unlock()
		return false, fmt.Errorf("publish %s: %w", msg.ID, ErrBrokerDown)
	}
	now := b.cfg.Clock.Now()
	if w := b.cfg.DedupWindow; w > 0 {
		if at, ok := b.accepted[msg.ID]; ok && now.Sub(at) < w {
			b.stats.DedupDropped++
			b.record(BrokerLogEntry{At: now, Kind: "dedup_drop", MessageID: msg.ID})
			b.mu.Unlock()
			return true, nil
		}
		if b.accepted == nil {
			b.accepted = map[uuid.UUID]time.Time{}
		}
		if len(b.accepted) >= b.acceptedPrune {
			// Ids past the window drop nothing any more: forget them, at
			// most once each time the map doubles, so a long run holds the
			// window's ids, not every id it ever saw.
			for id, at := range b.accepted {
				if now.Sub(at) >= w {
					delete(b.accepted, id)
				}
			}
			b.acceptedPrune = max(1024, 2*len(b.accepted))
		}
		b.accepted[msg.ID] = now
	}
	msg.PublishedAt = now
	if msg.Topic == "" {
		msg.Topic = TopicPayments
	}
	b.seq++
	for _, s := range b.byTopic[msg.Topic] {
		s.queue = append(s.queue, &brokerEntry{msg: msg, seq: b.seq, availableAt: now, dueIdx: -1})
	}
	b.stats.Published++
	b.stats.PublishesByID[msg.ID]++
	b.record(BrokerLogEntry{At: now, Kind: "publish", MessageID: msg.ID})
	b.mu.Unlock()
	b.signal()
	return false, nil
}

// Receive hands out the next available message of the subscription. Expired
// in-flight deliveries are requeued first, so a redelivery needs no timer.
func (b *Broker) Receive(ctx context.Context, name string) (Delivery, bool, error) {
	if err := ctx.Err(); err != nil {
		return Delivery{}, false, err
	}
	b.mu.Lock()
	if b.down {
		b.mu.Unlock()
		return Delivery{}, false, fmt.Errorf("receive on %s: %w", name, ErrBrokerDown)
	}
	s, ok := b.subs[name]
	if !ok {
		b.mu.Unlock()
		return Delivery{}, false, fmt.Errorf("receive on %s: %w", name, ErrUnknownSubscription)
	}
	now := b.cfg.Clock.Now()
	b.requeueExpired(s, now)
	e := b.take(s, now)
	if e == nil {
		b.mu.Unlock()
		return Delivery{}, false, nil
	}
	d := b.handOut(s, e, now)
	if b.dupNext {
		b.dupNext = false
		cp := &brokerEntry{msg: e.msg, seq: e.seq, count: e.count, availableAt: now, forced: true, dueIdx: -1}
		s.queue = append([]*brokerEntry{cp}, s.queue...)
		b.stats.Duplicated++
	}
	b.mu.Unlock()
	if b.cfg.Hook != nil {
		err := b.cfg.Hook(ctx, Event{Actor: b.cfg.Name, Checkpoint: BrokerDelivered, MessageIDs: []uuid.UUID{d.ID},
			Delivery: d.Count, Detail: Say("to %s, delivery %d", name, d.Count)})
		if err != nil {
			// The delivery stays in flight and comes back after the ack timeout.
			return Delivery{}, false, fmt.Errorf("deliver %s to %s: %w", d.ID, name, err)
		}
	}
	return d, true, nil
}

// take removes and returns the first waiting entry that may go out now.
func (b *Broker) take(s *subscription, now time.Time) *brokerEntry {
	for i, e := range s.queue {
		if e.availableAt.After(now) {
			continue
		}
		if b.cfg.OrderByKey && !e.forced && e.msg.Key != "" && s.keysInFly[e.msg.Key] > 0 {
			continue
		}
		if i == 0 {
			// The common case: advance instead of copying the whole queue.
			s.queue[0] = nil
			s.queue = s.queue[1:]
		} else {
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
		}
		return e
	}
	return nil
}

func (b *Broker) handOut(s *subscription, e *brokerEntry, now time.Time) Delivery {
	b.tag++
	e.tag = b.tag
	e.count++
	e.deadline = now.Add(b.cfg.AckTimeout)
	s.inflight[e.tag] = e
	heap.Push(&s.due, e)
	if e.msg.Key != "" {
		s.keysInFly[e.msg.Key]++
	}
	b.stats.Delivered++
	if e.count > 1 {
		b.stats.Redelivered++
	}
	b.stats.DeliveriesByID[s.name][e.msg.ID]++
	b.record(BrokerLogEntry{At: now, Kind: "deliver", Subscription: s.name, MessageID: e.msg.ID, Delivery: e.count, Tag: e.tag})
	return Delivery{Message: e.msg, Subscription: s.name, Count: e.count, Tag: e.tag, DeliveredAt: now}
}

// requeueExpired puts deliveries whose ack timeout passed back in the queue.
// The due heap yields exactly the in-flight entries whose deadline is not
// after now, without looking at the others; enqueue places each by (seq, tag),
// so the resulting queue does not depend on the order they are taken in.
func (b *Broker) requeueExpired(s *subscription, now time.Time) int {
	n := 0
	for len(s.due) > 0 && !s.due[0].deadline.After(now) {
		e := s.due[0]
		b.release(s, e.tag, e)
		e.availableAt = now
		b.enqueue(s, e)
		n++
	}
	return n
}

func (b *Broker) release(s *subscription, tag uint64, e *brokerEntry) {
	delete(s.inflight, tag)
	if e.dueIdx >= 0 {
		heap.Remove(&s.due, e.dueIdx)
	}
	if e.msg.Key != "" {
		if s.keysInFly[e.msg.Key]--; s.keysInFly[e.msg.Key] <= 0 {
			delete(s.keysInFly, e.msg.Key)
		}
	}
}

// enqueue inserts e in (seq, tag) order, so requeued messages keep their place.
func (b *Broker) enqueue(s *subscription, e *brokerEntry) {
	i := sort.Search(len(s.queue), func(i int) bool {
		q := s.queue[i]
		return q.seq > e.seq || (q.seq == e.seq && q.tag > e.tag)
	})
	s.queue = append(s.queue, nil)
	copy(s.queue[i+1:], s.queue[i:])
	s.queue[i] = e
}

// Redeliver requeues every delivery whose ack timeout has passed at now, on
// every subscription, and returns how many. Receive does this by itself; a
// simulator calls it to show the redelivery the moment its clock moves.
func (b *Broker) Redeliver(now time.Time) int {
	b.mu.Lock()
	n := 0
	for _, name := range b.subNames() {
		n += b.requeueExpired(b.subs[name], now)
	}
	b.mu.Unlock()
	if n > 0 {
		b.signal()
	}
	return n
}

func (b *Broker) subNames() []string {
	names := make([]string, 0, len(b.subs))
	for n := range b.subs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// settle removes an outstanding delivery; ok is false when it is not outstanding.
func (b *Broker) settle(d Delivery, kind string) (*subscription, *brokerEntry, error) {
	if b.down {
		return nil, nil, fmt.Errorf("%s %s: %w", kind, d.ID, ErrBrokerDown)
	}
	s, ok := b.subs[d.Subscription]
	if !ok {
		return nil, nil, fmt.Errorf("%s on %s: %w", kind, d.Subscription, ErrUnknownSubscription)
	}
	e, ok := s.inflight[d.Tag]
	if !ok {
		b.stats.StaleAcks++
		b.record(BrokerLogEntry{At: b.cfg.Clock.Now(), Kind: "stale_" + kind, Subscription: s.name, MessageID: d.ID, Delivery: d.Count, Tag: d.Tag})
		return nil, nil, fmt.Errorf("%s %s delivery %d: %w", kind, d.ID, d.Count, ErrStaleAck)
	}
	b.release(s, d.Tag, e)
	b.record(BrokerLogEntry{At: b.cfg.Clock.Now(), Kind: kind, Subscription: s.name, MessageID: d.ID, Delivery: d.Count, Tag: d.Tag})
	return s, e, nil
}

// Ack settles d. Acking a delivery that was already handed out again (its
// ack timeout passed) returns ErrStaleAck: the other copy is still out.
func (b *Broker) Ack(ctx context.Context, d Delivery) error {
	b.mu.Lock()
	_, _, err := b.settle(d, "ack")
	if err == nil {
		b.stats.Acked++
	}
	b.mu.Unlock()
	if err == nil {
		b.signal() // a key may have been freed
	}
	return err
}

// Nack hands d back, deliverable again after delay on the broker's clock.
func (b *Broker) Nack(ctx context.Context, d Delivery, delay time.Duration) error {
	b.mu.Lock()
	s, e, err := b.settle(d, "nack")
	if err == nil {
		b.stats.Nacked++
		e.availableAt = b.cfg.Clock.Now().Add(delay)
		e.forced = false
		b.enqueue(s, e)
	}
	b.mu.Unlock()
	if err == nil {
		b.signal()
	}
	return err
}

// Reject moves d to its subscription's dead letters.
func (b *Broker) Reject(ctx context.Context, d Delivery, reason string) error {
	b.mu.Lock()
	s, _, err := b.settle(d, "reject")
	if err == nil {
		b.stats.Rejected++
		s.dead = append(s.dead, DeadLetter{Delivery: d, Reason: reason, At: b.cfg.Clock.Now()})
	}
	b.mu.Unlock()
	if err == nil {
		b.signal()
	}
	return err
}

// DeadLetters returns the messages rejected on a subscription.
func (b *Broker) DeadLetters(subscription string) []DeadLetter {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.subs[subscription]; ok {
		return append([]DeadLetter(nil), s.dead...)
	}
	return nil
}

// record appends to the log; once LogLimit is reached the log is a ring
// whose oldest entry is at logHead.
func (b *Broker) record(e BrokerLogEntry) {
	b.seqLog++
	e.Seq = b.seqLog
	if b.cfg.LogLimit > 0 && b.log.n >= b.cfg.LogLimit {
		*b.log.at(b.logHead) = e
		b.logHead = (b.logHead + 1) % b.log.n
		return
	}
	b.log.append(e)
}

// logBlock is how many entries a brokerLog block holds.
const logBlock = 4096

// brokerLog is an append-only sequence of log entries kept in fixed-size
// blocks: appending never copies what is already there (a single growing
// slice re-copied, and page-faulted in, megabytes per doubling).
type brokerLog struct {
	blocks [][]BrokerLogEntry
	n      int
}

func (l *brokerLog) at(i int) *BrokerLogEntry { return &l.blocks[i/logBlock][i%logBlock] }

func (l *brokerLog) append(e BrokerLogEntry) {
	if l.n%logBlock == 0 && l.n/logBlock == len(l.blocks) {
		l.blocks = append(l.blocks, make([]BrokerLogEntry, logBlock))
	}
	*l.at(l.n) = e
	l.n++
}

// appendRange appends entries [from, to) to out.
func (l *brokerLog) appendRange(out []BrokerLogEntry, from, to int) []BrokerLogEntry {
	for from < to {
		blk := l.blocks[from/logBlock]
		end := min(to-from, logBlock-from%logBlock)
		out = append(out, blk[from%logBlock:from%logBlock+end]...)
		from += end
	}
	return out
}

// Log returns a copy of the broker's log, oldest first.
func (b *Broker) Log() []BrokerLogEntry {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]BrokerLogEntry, 0, b.log.n)
	out = b.log.appendRange(out, b.logHead, b.log.n)
	return b.log.appendRange(out, 0, b.logHead)
}

// Stats returns a copy of the broker's counters.
func (b *Broker) Stats() BrokerStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.stats
	st.PublishesByID = maps.Clone(b.stats.PublishesByID)
	st.DeliveriesByID = make(map[string]map[uuid.UUID]int, len(b.stats.DeliveriesByID))
	for k, v := range b.stats.DeliveriesByID {
		st.DeliveriesByID[k] = maps.Clone(v)
	}
	st.Queued, st.InFlight = map[string]int{}, map[string]int{}
	for name, s := range b.subs {
		st.Queued[name] = len(s.queue)
		st.InFlight[name] = len(s.inflight)
	}
	return st
}

// Reset forgets every message, delivery, dead letter, log entry and counter,
// keeping the subscriptions; the broker comes back up.
func (b *Broker) Reset() {
	b.mu.Lock()
	b.down, b.dupNext = false, false
	b.log, b.logHead = brokerLog{}, 0
	b.accepted = nil
	b.resetStats()
	for name, s := range b.subs {
		s.queue, s.dead = nil, nil
		s.inflight, s.keysInFly, s.due = map[uint64]*brokerEntry{}, map[string]int{}, nil
		b.stats.DeliveriesByID[name] = map[uuid.UUID]int{}
	}
	b.mu.Unlock()
	b.signal()
}

// UnsettledMessage is a message a subscription still holds: queued or in flight.
type UnsettledMessage struct {
	Subscription string
	Message      Message
	InFlight     bool
	Count        int // deliveries so far
}

// Unsettled lists every message not yet acknowledged or rejected, by
// subscription name, queued ones first in delivery order.
func (b *Broker) Unsettled() []UnsettledMessage {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []UnsettledMessage
	for _, name := range b.subNames() {
		s := b.subs[name]
		for _, e := range s.queue {
			out = append(out, UnsettledMessage{Subscription: name, Message: e.msg, Count: e.count})
		}
		tags := make([]uint64, 0, len(s.inflight))
		for tag := range s.inflight {
			tags = append(tags, tag)
		}
		slices.Sort(tags)
		for _, tag := range tags {
			e := s.inflight[tag]
			out = append(out, UnsettledMessage{Subscription: name, Message: e.msg, InFlight: true, Count: e.count})
		}
	}
	return out
}

// NextDue is the earliest moment something becomes deliverable: a queued
// message's availability or an in-flight delivery's ack timeout. ok is false
// when the broker holds nothing unsettled.
func (b *Broker) NextDue() (t time.Time, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	consider := func(at time.Time) {
		if !ok || at.Before(t) {
			t, ok = at, true
		}
	}
	for _, s := range b.subs {
		for _, e := range s.queue {
			consider(e.availableAt)
		}
		if len(s.due) > 0 {
			consider(s.due[0].deadline) // the earliest in-flight deadline
		}
	}
	return t, ok
}

// NextAckDeadline is the earliest deadline of an unACKed delivery.
func (b *Broker) NextAckDeadline() (t time.Time, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.subs {
		if len(s.due) > 0 && (!ok || s.due[0].deadline.Before(t)) {
			t, ok = s.due[0].deadline, true
		}
	}
	return t, ok
}
