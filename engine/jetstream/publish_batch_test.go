package jetstream

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/engine"
)

// A relay's claimed batch goes to JetStream as one atomic batch (one sync
// for the batch under SyncAlways, not one per message) and every row is
// marked on its answer; the same batch sent again (a relay that died after
// the publish, inside the dedup window) is refused whole as an atomic batch,
// goes again message by message, and every message is answered as a
// duplicate: the stream still holds each event once.
func TestBatchGoesAsOneAtomicBatchAndItsRepublishIsDuplicates(t *testing.T) {
	t.Parallel()
	b := setup(t, Config{})
	ctx := context.Background()
	if !b.broker.atomic {
		t.Fatal("the embedded server's stream does not take atomic batches")
	}
	ids := b.seed(t, 6)
	res := must[engine.RelayStepResult](t)(b.relay(t, "relay-1", nil).Step(ctx))
	if res.Published != 6 || res.Marked != 6 || res.DedupDropped != 0 {
		t.Fatalf("relay: %+v, want 6 published and marked", res)
	}
	st := b.broker.Stats()
	if st.AtomicBatches != 1 || st.AtomicRefused != 0 || st.Published != 6 {
		t.Fatalf("stats %+v: want one atomic batch of 6", st)
	}
	if n := streamInfo(t, b.nc, b.broker.Stream()).State.Msgs; n != 6 {
		t.Fatalf("the stream holds %d messages, want 6", n)
	}

	msgs := make([]engine.Message, len(ids))
	for i, id := range ids {
		msgs[i] = engine.Message{Envelope: envelope(t, b, id), Topic: engine.TopicPayments}
	}
	for i, r := range b.broker.PublishBatch(ctx, msgs) {
		if r.Err != nil || !r.Duplicate {
			t.Errorf("republish of %d: %+v, want a duplicate ack", i, r)
		}
	}
	st = b.broker.Stats()
	if st.AtomicBatches != 1 || st.AtomicRefused != 1 || st.Duplicates != 6 || st.Published != 6 {
		t.Errorf("stats after the republish %+v: want the batch refused and 6 duplicates", st)
	}
	if n := streamInfo(t, b.nc, b.broker.Stream()).State.Msgs; n != 6 {
		t.Errorf("after the republish the stream holds %d messages, want 6", n)
	}
}

// A batch whose answers partly fail marks only the messages JetStream
// acked: one event too large for the stream (a limit set by hand) makes
// the atomic batch refused; sent again message by message, the others are
// stored and marked, and the large one is scheduled for a retry with the
// server's answer as its error, not marked.
func TestBatchWithOneRefusedMessageMarksOnlyTheAcked(t *testing.T) {
	t.Parallel()
	b := setup(t, Config{})
	ctx := context.Background()
	ids := b.seed(t, 5)
	if _, err := b.pool.Exec(ctx, `UPDATE outbox_messages SET payload = jsonb_set(payload, '{note}', to_jsonb(repeat('x', 4000))) WHERE id = $1`, ids[2]); err != nil {
		t.Fatal(err)
	}
	cfg := streamInfo(t, b.nc, b.broker.Stream()).Config
	cfg.MaxMsgSize = 2048
	if _, err := b.broker.js.UpdateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	res := must[engine.RelayStepResult](t)(b.relay(t, "relay-1", nil).Step(ctx))
	if res.Claimed != 5 || res.Published != 4 || res.Marked != 4 || res.Retried != 1 {
		t.Fatalf("relay: %+v, want 4 of 5 published and marked, 1 retried", res)
	}
	if n := b.count(t, "SELECT count(*) FROM outbox_messages WHERE published_at IS NOT NULL AND id <> $1", ids[2]); n != 4 {
		t.Errorf("%d of the 4 acked rows marked", n)
	}
	if n := b.count(t, "SELECT count(*) FROM outbox_messages WHERE id = $1 AND published_at IS NULL AND attempts = 1 AND last_error LIKE '%maximum%'", ids[2]); n != 1 {
		t.Error("the refused row is not scheduled for a retry with the server's answer as its error")
	}
	if st := b.broker.Stats(); st.AtomicBatches != 0 || st.AtomicRefused != 1 || st.Published != 4 {
		t.Errorf("stats %+v: want the atomic batch refused and 4 stored one by one", st)
	}
}

// Open turns atomic batches on for a stream an earlier version created
// without them, in place: the messages it holds stay.
func TestOpenAllowsAtomicBatchesInPlace(t *testing.T) {
	t.Parallel()
	b := setup(t, Config{})
	ctx := context.Background()
	publishN(t, b.broker, 3)
	cfg := streamInfo(t, b.nc, b.broker.Stream()).Config
	cfg.AllowAtomicPublish = false
	if _, err := b.broker.js.UpdateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	br := b.open(t, Config{})
	si := streamInfo(t, b.nc, br.Stream())
	if !br.atomic || !si.Config.AllowAtomicPublish {
		t.Errorf("reopened: atomic %v, stream allows %v; want both", br.atomic, si.Config.AllowAtomicPublish)
	}
	if si.State.Msgs != 3 {
		t.Errorf("reopened stream holds %d messages, want the 3 published", si.State.Msgs)
	}
}

// A batch nobody answers is failed whole as the broker being down (as one
// with no answer in time is): it is not known whether it was stored, and
// the relay publishes it again later with the same ids.
func TestAtomicBatchNobodyAnswersFailsWhole(t *testing.T) {
	t.Parallel()
	b := setup(t, Config{Timeout: 300 * time.Millisecond})
	ctx := context.Background()
	// Nothing answers on the stream's subjects once it is gone: the server
	// says so at once (no responders), which is as good as down.
	if err := b.broker.js.DeleteStream(ctx, b.broker.Stream()); err != nil {
		t.Fatal(err)
	}
	msgs := make([]engine.Message, 3)
	for i, id := range b.seed(t, 3) {
		msgs[i] = engine.Message{Envelope: envelope(t, b, id), Topic: engine.TopicPayments}
	}
	for i, r := range b.broker.PublishBatch(ctx, msgs) {
		if !errors.Is(r.Err, engine.ErrBrokerDown) {
			t.Errorf("message %d: %v, want the broker down", i, r.Err)
		}
	}
	if st := b.broker.Stats(); st.AtomicBatches != 0 || st.AtomicRefused != 0 || st.Published != 0 {
		t.Errorf("stats %+v: want nothing stored, nothing refused", st)
	}
}
