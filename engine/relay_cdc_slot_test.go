package engine

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/internal/testrun"
)

// Making a logical slot waits for every transaction open at that moment to
// end: a session left in a transaction (a writer paused mid-request, a psql
// in BEGIN) would hang the CDC relay's first step, and the TUI with it. The
// relay waits SlotWait at most and fails with ErrSlotBlocked naming the
// session; once that transaction ends it starts.
func TestCDCSlotBlockedByAnOpenTransactionFailsNamingIt(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	holder := b.conn(t)
	var pid int32
	if err := holder.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Exec(ctx, `BEGIN`); err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Exec(ctx, `SELECT txid_current()`); err != nil {
		t.Fatal(err)
	}
	const wait = time.Second
	r := NewRelay(RelayConfig{Name: "cdc-relay", Connect: b.connect, Publisher: b.broker, Clock: b.clock,
		Counters: b.counters, CDC: true, SlotWait: wait})
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	start := time.Now()
	sctx, cancel := context.WithTimeout(ctx, wait+10*time.Second) // not for ever without the bound
	_, err := r.Step(sctx)
	cancel()
	took := time.Since(start)
	if !errors.Is(err, ErrSlotBlocked) {
		t.Fatalf("a step with a transaction open: %v, want ErrSlotBlocked", err)
	}
	if took < wait || took > wait+3*time.Second {
		t.Errorf("refused after %v, want about SlotWait (%v)", took, wait)
	}
	var blocked *SlotBlockedError
	if !errors.As(err, &blocked) {
		t.Fatalf("%T, want a *SlotBlockedError", err)
	}
	var named bool
	for _, x := range blocked.Blockers {
		named = named || x.PID == pid
	}
	msg := err.Error()
	for _, want := range []string{"pid " + strconv.Itoa(int(pid)), "idle in transaction", "txid_current", "end that transaction"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	if !named {
		t.Errorf("blockers %+v, want pid %d among them", blocked.Blockers, pid)
	}
	if _, err := holder.Exec(ctx, `COMMIT`); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Step(ctx); err != nil {
		t.Fatalf("after the COMMIT: %v", err)
	}
	resp := must[PaymentResponse](t)(b.writer(t, nil).CreatePayment(ctx, payment("c1")))
	res := must[RelayStepResult](t)(r.Step(ctx))
	if res.Published != 1 || b.broker.Stats().PublishesByID[resp.EventID] != 1 {
		t.Errorf("after the COMMIT: %+v, want the new row published", res)
	}
}

// A CDC relay killed or closed between steps, nothing in flight, lets go of
// its slot: the server's walsender ends with the connection, and a restarted
// relay streams from the slot and publishes the next row.
func TestCDCRelayIdleEndLetsGoOfTheSlot(t *testing.T) {
	t.Parallel()
	for _, end := range []string{"kill", "close"} {
		t.Run(end, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			ctx := context.Background()
			r1 := b.cdcRelay(t, nil)
			if err := r1.OpenSlot(ctx); err != nil {
				t.Fatal(err)
			}
			must[PaymentResponse](t)(b.writer(t, nil).CreatePayment(ctx, payment("c1")))
			if res := must[RelayStepResult](t)(r1.Step(ctx)); res.Published != 1 {
				t.Fatalf("first step: %+v, want 1 published", res)
			}
			must[RelayStepResult](t)(r1.Step(ctx)) // idle
			if end == "kill" {
				r1.Kill()
			} else if err := r1.Close(ctx); err != nil {
				t.Fatal(err)
			}
			testrun.Eventually(t, 2*time.Second, "the slot inactive after the relay's "+end, func() bool {
				var active bool
				if err := b.pool.QueryRow(ctx, `SELECT active FROM pg_replication_slots WHERE slot_name = $1`, r1.Slot()).Scan(&active); err != nil {
					t.Fatal(err)
				}
				return !active
			})
			resp := must[PaymentResponse](t)(b.writer(t, nil).CreatePayment(ctx, payment("c2")))
			r2 := b.cdcRelay(t, nil)
			if res := must[RelayStepResult](t)(r2.Step(ctx)); res.Published != 1 || b.broker.Stats().PublishesByID[resp.EventID] != 1 {
				t.Errorf("the restarted relay: %+v, want the new row published once", res)
			}
		})
	}
}
