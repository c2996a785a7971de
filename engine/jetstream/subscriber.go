package jetstream

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/outboxlab/outboxlab/engine"
)

// Receive hands out the next message of the subscription's durable
// consumer, or ok == false when JetStream has none now. It never waits for
// one: it pulls with no_wait, FetchBatch at a time, and keeps the rest for
// the next call. Count is JetStream's delivery count for the message.
func (b *Broker) Receive(ctx context.Context, name string) (engine.Delivery, bool, error) {
	if err := ctx.Err(); err != nil {
		return engine.Delivery{}, false, err
	}
	s, err := b.sub(name)
	if err != nil {
		return engine.Delivery{}, false, err
	}
	s.mu.Lock()
	if len(s.buf) == 0 {
		if err := b.pull(s, b.cfg.FetchBatch); err != nil {
			s.mu.Unlock()
			return engine.Delivery{}, false, err
		}
	}
	ms := s.take(1)
	s.mu.Unlock()
	if len(ms) == 0 {
		return engine.Delivery{}, false, nil
	}
	d, err := b.deliver(ctx, s, ms[0])
	if err != nil {
		return engine.Delivery{}, false, err
	}
	return d, true, nil
}

// ReceiveBatch hands out up to n messages of the subscription's durable
// consumer (engine.BatchReceiver): those a Receive left in the buffer, then
// one no_wait pull for the rest, so a batch consumer's batch costs one
// round trip instead of one per FetchBatch messages. Nothing is kept back:
// a message pulled is handed out at once, and its AckWait runs while the
// caller handles it, not while it waits in a buffer. It returns what it
// handed out, and the error that stopped it early (a failed pull with
// nothing to hand out, or the broker.delivered hook's).
func (b *Broker) ReceiveBatch(ctx context.Context, name string, n int) ([]engine.Delivery, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, err := b.sub(name)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	var perr error
	if len(s.buf) < n {
		perr = b.pull(s, n-len(s.buf))
	}
	ms := s.take(n)
	s.mu.Unlock()
	ds := make([]engine.Delivery, 0, len(ms))
	for i, m := range ms {
		d, err := b.deliver(ctx, s, m)
		if err != nil {
			// Stop at the first that could not be handed out, as Receive
			// would: the rest wait in the buffer, in their order.
			s.mu.Lock()
			s.buf = append(ms[i+1:len(ms):len(ms)], s.buf...)
			s.mu.Unlock()
			return ds, err
		}
		ds = append(ds, d)
	}
	if len(ds) == 0 {
		return nil, perr
	}
	return ds, nil
}

// take removes up to n messages from the front of the buffer. s.mu is held.
func (s *subscription) take(n int) []jetstream.Msg {
	k := min(n, len(s.buf))
	if k == 0 {
		return nil
	}
	out := make([]jetstream.Msg, k)
	copy(out, s.buf)
	clear(s.buf[:k])
	s.buf = s.buf[k:]
	return out
}

// deliver hands out m, a message pulled for s: its delivery, counted and
// remembered until it is settled, after the broker.delivered hook.
func (b *Broker) deliver(ctx context.Context, s *subscription, m jetstream.Msg) (engine.Delivery, error) {
	msg, err := decode(s.topic, m)
	if err != nil {
		// It can never be handled: terminate it rather than see it again
		// every AckWait.
		_ = m.TermWithReason("undecodable")
		return engine.Delivery{}, err
	}
	count := 1
	if meta, err := m.Metadata(); err == nil {
		count = int(meta.NumDelivered)
	}
	b.mu.Lock()
	b.tag++
	tag := b.tag
	b.out[tag] = m
	b.stats.Delivered++
	if count > 1 {
		b.stats.Redelivered++
	}
	b.mu.Unlock()
	d := engine.Delivery{Message: msg, Subscription: s.name, Count: count, Tag: tag, DeliveredAt: b.cfg.Clock.Now()}
	if b.cfg.Hook != nil {
		err := b.cfg.Hook(ctx, engine.Event{Actor: b.cfg.Name, Checkpoint: engine.BrokerDelivered, MessageIDs: []uuid.UUID{d.ID},
			Delivery: d.Count, Detail: engine.Say("to %s, delivery %d", s.name, d.Count)})
		if err != nil {
			// Not settled: JetStream hands it out again after AckWait.
			b.forget(tag)
			return engine.Delivery{}, fmt.Errorf("deliver %s to %s: %w", d.ID, s.name, err)
		}
	}
	return d, nil
}

// pull adds to s.buf up to max messages JetStream has now. A no_wait pull
// is answered at once (messages, then "no messages"); a pull with no answer
// within Timeout means the server is gone. s.mu is held.
func (b *Broker) pull(s *subscription, max int) error {
	what := "receive on " + s.name
	if !b.nc.IsConnected() {
		return brokerErr(what, nats.ErrDisconnected)
	}
	b.count(&b.stats.Pulls)
	batch, err := s.consumer.FetchNoWait(max)
	if err != nil {
		return brokerErr(what, err)
	}
	tctx, cancel := context.WithTimeout(context.Background(), b.cfg.Timeout)
	defer cancel()
	for {
		select {
		case m, ok := <-batch.Messages():
			if !ok {
				if err := batch.Error(); err != nil {
					return brokerErr(what, err)
				}
				return nil
			}
			s.buf = append(s.buf, m)
		case <-tctx.Done():
			return brokerErr(what, errAnswerTimeout)
		}
	}
}

func (b *Broker) take(d engine.Delivery, op string) (jetstream.Msg, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	m, ok := b.out[d.Tag]
	if !ok {
		return nil, fmt.Errorf("%s %s delivery %d: %w", op, d.ID, d.Count, engine.ErrStaleAck)
	}
	delete(b.out, d.Tag)
	return m, nil
}

func (b *Broker) forget(tag uint64) {
	b.mu.Lock()
	delete(b.out, tag)
	b.mu.Unlock()
}

// Ack acknowledges d and waits for JetStream to confirm it: an ack lost on
// the way would mean one more redelivery for the inbox to absorb, an ack
// confirmed means none.
func (b *Broker) Ack(ctx context.Context, d engine.Delivery) error {
	m, err := b.take(d, "ack")
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	if err := m.DoubleAck(cctx); err != nil {
		return brokerErr(fmt.Sprintf("ack %s delivery %d", d.ID, d.Count), err)
	}
	b.count(&b.stats.Acked)
	b.purgeAckedSoon()
	return nil
}

// AckBatch acknowledges every delivery without waiting for each answer,
// then waits once (a flush: PING and its PONG) until the server has read
// them all. Weaker than Ack's confirmation — the server may still lose an
// ack it had read if it dies at once — and what that costs is one more
// redelivery, which the inbox absorbs; it saves a round trip per delivery.
func (b *Broker) AckBatch(ctx context.Context, ds []engine.Delivery) []error {
	errs := make([]error, len(ds))
	sent := false
	for i, d := range ds {
		m, err := b.take(d, "ack")
		if err == nil {
			err = m.Ack()
		}
		if err != nil {
			errs[i] = brokerErr(fmt.Sprintf("ack %s delivery %d", d.ID, d.Count), err)
			continue
		}
		sent = true
	}
	if !sent {
		return errs
	}
	cctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	ferr := b.nc.FlushWithContext(cctx)
	n := 0
	for i, d := range ds {
		if errs[i] != nil {
			continue
		}
		if ferr != nil {
			errs[i] = brokerErr(fmt.Sprintf("ack %s delivery %d", d.ID, d.Count), ferr)
			continue
		}
		n++
	}
	b.mu.Lock()
	b.stats.Acked += n
	b.mu.Unlock()
	if n > 0 {
		b.purgeAckedSoon()
	}
	return errs
}

// Nack hands d back: JetStream delivers it again after delay.
func (b *Broker) Nack(ctx context.Context, d engine.Delivery, delay time.Duration) error {
	m, err := b.take(d, "nack")
	if err != nil {
		return err
	}
	if err := m.NakWithDelay(delay); err != nil {
		return brokerErr(fmt.Sprintf("nack %s delivery %d", d.ID, d.Count), err)
	}
	b.count(&b.stats.Nacked)
	return nil
}

// Reject terminates d: JetStream never delivers it to this consumer again
// (and publishes an advisory an operator can watch).
func (b *Broker) Reject(ctx context.Context, d engine.Delivery, reason string) error {
	m, err := b.take(d, "reject")
	if err != nil {
		return err
	}
	if err := m.TermWithReason(reason); err != nil {
		return brokerErr(fmt.Sprintf("reject %s delivery %d", d.ID, d.Count), err)
	}
	b.count(&b.stats.Rejected)
	b.purgeAckedSoon()
	return nil
}

func (b *Broker) count(n *int) {
	b.mu.Lock()
	*n++
	b.mu.Unlock()
}

// Changed returns a channel closed the next time a message is published on
// the pipeline's subjects, by this process or any other, so a consumer's Run
// wakes at once instead of at its next poll. It listens with a plain NATS
// subscription on the stream's subjects (JetStream stores, this only
// signals), which can arrive before the stream has stored the message: a
// publish through this broker signals again on its ack. Redeliveries after
// AckWait are found by the poll.
func (b *Broker) Changed() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.wake == nil {
		sub, err := b.nc.Subscribe(b.subject+".>", func(*nats.Msg) { b.signal() })
		if err == nil {
			b.wake = sub
		}
	}
	return b.changes.Watch()
}

// signal wakes whoever waits on a channel Changed returned.
func (b *Broker) signal() { b.changes.Notify() }

var (
	_ engine.DedupPublisher = (*Broker)(nil)
	_ engine.BatchPublisher = (*Broker)(nil)
	_ engine.BatchAcker     = (*Broker)(nil)
	_ engine.BatchReceiver  = (*Broker)(nil)
	_ engine.Subscriber     = (*Broker)(nil)
)
