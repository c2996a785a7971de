package jetstream

import (
	"context"
	"testing"

	"github.com/outboxlab/outboxlab/engine"
)

// A broker at its defaults, as a deployment opens it, keeps no count per
// event id: a serve left running publishes for days, and a map entry per
// message would grow its memory with every payment. Its totals
// still count, duplicates included.
func TestABrokerAtItsDefaultsKeepsNothingPerMessage(t *testing.T) {
	t.Parallel()
	b := setup(t, Config{})
	ctx := context.Background()
	b.seed(t, 25) // one claim: the relay's default batch
	res := must[engine.RelayStepResult](t)(b.relay(t, "relay-1", nil).Step(ctx))
	if res.Published != 25 {
		t.Fatalf("relay: %+v, want 25 published", res)
	}
	ids := publishN(t, b.broker, 3)
	again := engine.Message{Envelope: engine.Envelope{ID: ids[0], Type: "payment.created", SchemaVersion: 1, AggregateType: "payment",
		AggregateID: ids[0].String(), Payload: []byte(`{"n":0}`)}, Topic: engine.TopicPayments}
	if dup, err := b.broker.PublishDedup(ctx, again); err != nil || !dup {
		t.Fatalf("the same id again: duplicate %v, %v; want a duplicate ack", dup, err)
	}
	st := b.broker.Stats()
	if st.Published != 28 || st.Duplicates != 1 {
		t.Errorf("published %d, duplicates %d; want 28 and 1", st.Published, st.Duplicates)
	}
	if st.PublishesByID != nil || st.DuplicatesByID != nil {
		t.Errorf("%d ids counted, %d duplicates by id: want no map at all", len(st.PublishesByID), len(st.DuplicatesByID))
	}
	if b.broker.stats.PublishesByID != nil || b.broker.stats.DuplicatesByID != nil {
		t.Error("the broker keeps a map per id")
	}
}
