package chaos

import (
	"context"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
)

func TestTimelineDoubleLeases(t *testing.T) {
	at := func(s int) time.Time { return sim.Epoch.Add(time.Duration(s) * time.Second) }
	until := func(s int) *time.Time { u := at(s); return &u }
	claim := func(actor string, s, u int) sim.Entry {
		return sim.Entry{Pipeline: "outbox", Actor: actor, At: at(s), Checkpoint: string(engine.RelayClaimed), MessageIDs: []string{"m"}, LeaseUntil: until(u)}
	}
	mark := func(actor string, s int) sim.Entry {
		return sim.Entry{Pipeline: "outbox", Actor: actor, At: at(s), Checkpoint: string(engine.RelayMarked), MessageIDs: []string{"m"}}
	}
	for _, tc := range []struct {
		name   string
		tl     []sim.Entry
		holdTx bool
		want   int
	}{
		{"a claim over a running lease", []sim.Entry{claim("relay-1", 0, 30), claim("relay-2", 10, 40)}, false, 1},
		{"after it expired", []sim.Entry{claim("relay-1", 0, 30), claim("relay-2", 31, 61)}, false, 0},
		{"after its mark", []sim.Entry{claim("relay-1", 0, 30), mark("relay-1", 1), claim("relay-2", 10, 40)}, false, 0},
		{"a restarted relay is another worker", []sim.Entry{claim("relay-1", 0, 30), {Pipeline: "outbox", Actor: "relay-1", Kind: "restart", At: at(5)}, claim("relay-1", 10, 40)}, false, 1},
		{"the same worker again", []sim.Entry{claim("relay-1", 0, 30), claim("relay-1", 10, 40)}, false, 0},
		{"a claim over a held transaction, past its lease time", []sim.Entry{claim("relay-1", 0, 30), claim("relay-2", 40, 70)}, true, 1},
		{"a crash rolls a held claim back", []sim.Entry{claim("relay-1", 0, 30), {Pipeline: "outbox", Actor: "relay-1", Kind: "crash", At: at(2)}, claim("relay-2", 3, 33)}, true, 0},
	} {
		if tc.name == "a claim over a held transaction, past its lease time" {
			tc.tl[0].LeaseUntil = nil // a held transaction writes no lease
		}
		if got := TimelineDoubleLeases(tc.tl, tc.holdTx); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

// With the wrong relay that holds its transaction open, the lease witness
// and the timeline agree too.
func TestLeaseWitnessesAgreeWithHeldTransactions(t *testing.T) {
	t.Parallel()
	outs, err := Run(context.Background(), pgtest.Server(t), 3, 0, 40, 2, Options{Mode: scenes.Outbox, Variant: "hold-transaction"}, "chaoshold2", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 40 {
		t.Fatalf("%d runs came back, want 40", len(outs))
	}
	payments := int64(0)
	for _, o := range outs {
		if o.Err != nil {
			t.Errorf("run %d was not carried out: %v", o.Index, o.Err)
		}
		if o.Violated() {
			t.Errorf("run %d: %v", o.Index, o.Broken)
		}
		payments += o.Payments
	}
	if payments == 0 {
		t.Error("no run committed a payment: the witnesses had nothing to agree on")
	}
}
