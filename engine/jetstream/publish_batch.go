package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/outboxlab/outboxlab/engine"
)

// The headers of a JetStream atomic batch (ADR-50, nats-server 2.12 and
// later; nats.go names none of them).
const (
	headerBatchID     = "Nats-Batch-Id"
	headerBatchSeq    = "Nats-Batch-Sequence"
	headerBatchCommit = "Nats-Batch-Commit"
)

// errBatchRefused is an atomic batch the server answered without storing
// it: PublishBatch sends it again message by message.
var errBatchRefused = errors.New("atomic batch refused")

// atomicBatchMax is the most messages nats-server takes in one atomic batch
// (its default JetStream limit): a longer batch goes as several.
const atomicBatchMax = 1000

// PublishBatch publishes msgs and waits for every answer (Timeout at most);
// each answer is PublishAck's: the relay marks a row only on its ack, and
// an ack means stored (and, on the embedded server, synced to disk).
//
// On a stream that takes atomic batches (Open allows them when the server
// can) each run of up to atomicBatchMax messages goes as ONE atomic batch:
// the server stores the run whole or not at all and answers once, after the
// write is synced. Under SyncAlways that is one sync for the run where
// separate publishes cost one sync per message, the single node's limit.
// A run the server refuses stored nothing — its usual cause is
// an id still inside the dedup window, a republish after a crash: an atomic
// batch may not hold a duplicate — and goes again message by message with
// asynchronous publishes, which answer each message on its own, duplicate
// acks included. A run with no answer in time is failed whole: the relay
// publishes it again later with the same ids, which the window drops if the
// first attempt was stored after all.
func (b *Broker) PublishBatch(ctx context.Context, msgs []engine.Message) []engine.PublishResult {
	out := make([]engine.PublishResult, len(msgs))
	if err := ctx.Err(); err != nil {
		for i := range out {
			out[i].Err = fmt.Errorf("publish %s: %w", msgs[i].ID, err)
		}
		return out
	}
	now := b.cfg.Clock.Now()
	for start := 0; start < len(msgs); start += atomicBatchMax {
		run, res := msgs[start:min(start+atomicBatchMax, len(msgs))], out[start:min(start+atomicBatchMax, len(msgs))]
		if !b.atomic || len(run) < 2 {
			b.publishAsync(ctx, run, now, res)
			continue
		}
		err := b.publishAtomic(ctx, run, now)
		switch {
		case err == nil:
			b.mu.Lock()
			b.stats.AtomicBatches++
			b.mu.Unlock()
		case errors.Is(err, errBatchRefused):
			b.mu.Lock()
			b.stats.AtomicRefused++
			b.mu.Unlock()
			b.publishAsync(ctx, run, now, res)
			continue
		default:
			for i := range res {
				if ctx.Err() != nil {
					res[i].Err = fmt.Errorf("publish %s: %w", run[i].ID, ctx.Err())
				} else {
					res[i].Err = brokerErr("publish "+run[i].ID.String()+" in an atomic batch", err)
				}
			}
		}
	}
	b.countPublished(msgs, out)
	return out
}

// batchAck is the server's answer to an atomic batch's commit: a PubAck
// with the batch's id and size, or an error.
type batchAck struct {
	Stream    string              `json:"stream"`
	Sequence  uint64              `json:"seq"`
	BatchID   string              `json:"batch"`
	BatchSize int                 `json:"count"`
	Error     *jetstream.APIError `json:"error"`
}

// publishAtomic sends msgs as one atomic batch: every message but the last
// published with no reply (the server answers none of them), the last one
// a request carrying the commit; the answer is the whole batch's. A refusal
// (errBatchRefused) stored nothing of the batch; any other error leaves it
// unknown whether the batch was stored.
func (b *Broker) publishAtomic(ctx context.Context, msgs []engine.Message, now time.Time) error {
	if !b.nc.IsConnected() {
		return nats.ErrDisconnected
	}
	id := uuid.NewString()
	var last *nats.Msg
	for i, msg := range msgs {
		m, err := encode(b.topicSubject(msg.Topic), msg, now)
		if err != nil {
			return err
		}
		m.Header.Set(headerBatchID, id)
		m.Header.Set(headerBatchSeq, strconv.Itoa(i+1))
		if i == len(msgs)-1 {
			m.Header.Set(headerBatchCommit, "1")
			last = m
			break
		}
		if err := b.nc.PublishMsg(m); err != nil {
			return err
		}
	}
	tctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	resp, err := b.nc.RequestMsgWithContext(tctx, last)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return errAnswerTimeout
		}
		return err
	}
	var ack batchAck
	if err := json.Unmarshal(resp.Data, &ack); err != nil {
		return fmt.Errorf("atomic batch %s: answer %q: %w", id, resp.Data, err)
	}
	if ack.Error != nil {
		return fmt.Errorf("atomic batch %s of %d: %w: %w", id, len(msgs), errBatchRefused, ack.Error)
	}
	if ack.BatchID != id || ack.BatchSize != len(msgs) || ack.Stream != b.stream {
		// Not the answer of a batch: a server that does not know atomic
		// batches stored each message as a plain publish, and answered only
		// the last. Every message had its Nats-Msg-Id: sent again one by one,
		// those it stored are acked as duplicates.
		return fmt.Errorf("atomic batch %s of %d: %w: answered %s", id, len(msgs), errBatchRefused, resp.Data)
	}
	return nil
}

// publishAsync sends every message with JetStream's asynchronous publish,
// then waits for each ack (Timeout at most), writing the answers to out:
// one round trip for the run instead of one per message.
func (b *Broker) publishAsync(ctx context.Context, msgs []engine.Message, now time.Time, out []engine.PublishResult) {
	futures := make([]jetstream.PubAckFuture, len(msgs))
	for i, msg := range msgs {
		what := "publish " + msg.ID.String()
		if !b.nc.IsConnected() {
			out[i].Err = brokerErr(what, nats.ErrDisconnected)
			continue
		}
		m, err := encode(b.topicSubject(msg.Topic), msg, now)
		if err == nil {
			futures[i], err = b.js.PublishMsgAsync(m)
		}
		if err != nil {
			out[i].Err = brokerErr(what, err)
		}
	}
	// The answers' deadline is a context's: the engine reads time only from
	// its clock (engine's TestEngineReadsTimeOnlyFromItsClock). Once it has
	// passed, every later answer is late too.
	tctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	for i, f := range futures {
		if f == nil {
			continue
		}
		what := "publish " + msgs[i].ID.String()
		// An answer already in is taken before the deadline is looked at: past
		// the first timeout the deadline is always done, and select picks
		// among ready cases at random, which would call a stored message
		// failed (a spurious retry and last_error).
		select {
		case ack := <-f.Ok():
			out[i].Duplicate = ack.Duplicate
			continue
		case err := <-f.Err():
			out[i].Err = brokerErr(what, err)
			continue
		default:
		}
		select {
		case ack := <-f.Ok():
			out[i].Duplicate = ack.Duplicate
		case err := <-f.Err():
			out[i].Err = brokerErr(what, err)
		case <-tctx.Done():
			if ctx.Err() != nil {
				out[i].Err = fmt.Errorf("%s: %w", what, ctx.Err())
			} else {
				out[i].Err = brokerErr(what, errAnswerTimeout)
			}
		}
	}
}

// countPublished adds a batch's answers to Stats and wakes the consumers
// when something was stored.
func (b *Broker) countPublished(msgs []engine.Message, out []engine.PublishResult) {
	stored := 0
	b.mu.Lock()
	for i, r := range out {
		if r.Err != nil {
			continue
		}
		if !r.Duplicate {
			stored++
		}
		b.stats.countPublish(msgs[i].ID, r.Duplicate)
	}
	b.mu.Unlock()
	if stored > 0 {
		b.signal()
	}
}
