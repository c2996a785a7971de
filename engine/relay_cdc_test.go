package engine

import (
	"context"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/internal/testrun"
)

func (b *bundle) cdcRelay(t testing.TB, hook Hook) *Relay {
	r := NewRelay(RelayConfig{Name: "cdc-relay", Connect: b.connect, Publisher: b.broker, Clock: b.clock, Hook: hook,
		Counters: b.counters, CDC: true})
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	return r
}

// The CDC relay's duplicate window. Killed anywhere between
// receiving a transaction from the slot and confirming its LSN, the relay
// restarts from the slot's confirmed_flush_lsn and publishes the same id
// again; the inbox keeps one effect. Killed after confirming, it does not.
func TestCDCRelayCrashBeforeConfirmRedelivers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		at        Checkpoint
		publishes int
	}{
		{RelayReceived, 1}, // never reached the broker: published once, after the restart
		{RelayPublished, 2},
		{RelayMarked, 2},
		{RelayConfirmed, 1},
	} {
		t.Run(string(tc.at), func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			ctx := context.Background()
			r1 := b.cdcRelay(t, faultAt(tc.at, ErrCrash))
			if err := r1.OpenSlot(ctx); err != nil {
				t.Fatal(err)
			}
			resp := must[PaymentResponse](t)(b.writer(t, nil).CreatePayment(ctx, payment("c1")))
			_, err := r1.Step(ctx)
			mustErrIs(t, err, ErrCrash)

			r2 := b.cdcRelay(t, nil) // the restart: same name, same slot
			res := must[RelayStepResult](t)(r2.Step(ctx))
			if want := map[bool]int{true: 0, false: 1}[tc.at == RelayConfirmed]; res.Published != want {
				t.Fatalf("after the restart: %+v, want %d published", res, want)
			}
			if got := b.broker.Stats().PublishesByID[resp.EventID]; got != tc.publishes {
				t.Fatalf("id published %d times, want %d", got, tc.publishes)
			}
			if res := must[RelayStepResult](t)(r2.Step(ctx)); !res.Idle {
				t.Errorf("a third step: %+v, want idle (the restart confirmed)", res)
			}
			c := b.consumer(t, "accounting", StrategyInbox, nil)
			for range tc.publishes {
				must[ConsumeResult](t)(c.Step(ctx))
			}
			if n := b.count(t, "SELECT count(*) FROM ledger_entries WHERE message_id = $1", resp.EventID); n != 1 {
				t.Errorf("%d ledger entries, want 1", n)
			}
			if got, want := b.counters.DuplicatesIgnored.Load(), int64(tc.publishes-1); got != want {
				t.Errorf("duplicates ignored %d, want %d", got, want)
			}
			if n := b.count(t, "SELECT count(*) FROM outbox_messages WHERE published_at IS NOT NULL AND attempts = 0 AND lock_id IS NULL"); n != 1 {
				t.Errorf("%d rows published with no claim and no lease, want 1", n)
			}
		})
	}
}

// The slot holds WAL while its relay is down: what the server keeps for it
// (current WAL position less the slot's restart_lsn) grows with every
// request committed meanwhile, and what the relay has not confirmed falls to
// nothing once it confirms. restart_lsn itself moves at the next snapshot of
// running transactions the slot decodes (a checkpoint writes one).
func TestCDCSlotRetainsWALWhileTheRelayIsDown(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	r := b.cdcRelay(t, nil)
	must[RelayStepResult](t)(r.Step(ctx))
	slot := r.Slot()
	retained := func() (held, unconfirmed int64) {
		t.Helper()
		err := b.pool.QueryRow(ctx, `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint,
			pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint FROM pg_replication_slots WHERE slot_name = $1`, slot).Scan(&held, &unconfirmed)
		if err != nil {
			t.Fatal(err)
		}
		return held, unconfirmed
	}
	if err := r.Close(ctx); err != nil { // down
		t.Fatal(err)
	}
	w := b.writer(t, nil)
	held0, _ := retained()
	prev := held0
	// lastStart is the server's WAL position before the fifth request: that
	// request's commit ends past it, so a slot that confirmed every request
	// has its confirmed_flush_lsn beyond it, whatever other databases of
	// the shared server wrote meanwhile (their WAL is in the same stream).
	var lastStart string
	for i := range 5 {
		if i == 4 {
			if err := b.pool.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&lastStart); err != nil {
				t.Fatal(err)
			}
		}
		must[PaymentResponse](t)(w.CreatePayment(ctx, payment("c")))
		held, unconfirmed := retained()
		if held <= prev || unconfirmed <= 0 {
			t.Fatalf("after request %d with the relay down: held %d (before %d), unconfirmed %d: want growing", i+1, held, prev, unconfirmed)
		}
		prev = held
	}
	confirmedPast := func(lsn string) bool {
		t.Helper()
		var yes bool
		if err := b.pool.QueryRow(ctx, `SELECT confirmed_flush_lsn > $2::pg_lsn FROM pg_replication_slots WHERE slot_name = $1`, slot, lsn).Scan(&yes); err != nil {
			t.Fatal(err)
		}
		return yes
	}
	if confirmedPast(lastStart) {
		t.Fatalf("the slot confirmed past %s with the relay down", lastStart)
	}
	res := must[RelayStepResult](t)(r.Step(ctx)) // back up
	if res.Published != 5 {
		t.Fatalf("back up: %+v, want the 5 published", res)
	}
	// The relay confirms what it published on its next, idle step.
	must[RelayStepResult](t)(r.Step(ctx))
	if !confirmedPast(lastStart) {
		t.Errorf("after the confirmation the slot has not confirmed past %s, where the last request began", lastStart)
	}
	// restart_lsn moves to a snapshot the slot serialised at an earlier
	// running-transactions record, once the relay confirms past a later one
	// (checkpoints write them): the server may then remove the WAL before.
	// The bytes held count every database's WAL (parallel tests write
	// plenty), so it is restart_lsn that is compared.
	restart := func() (lsn string) {
		t.Helper()
		if err := b.pool.QueryRow(ctx, `SELECT restart_lsn::text FROM pg_replication_slots WHERE slot_name = $1`, slot).Scan(&lsn); err != nil {
			t.Fatal(err)
		}
		return lsn
	}
	moved := func(from string) bool {
		var yes bool
		if err := b.pool.QueryRow(ctx, `SELECT restart_lsn > $2::pg_lsn FROM pg_replication_slots WHERE slot_name = $1`, slot, from).Scan(&yes); err != nil {
			t.Fatal(err)
		}
		return yes
	}
	// running_xacts is the cluster's: a transaction open in a parallel
	// test's database holds the candidate back until it ends, so a few
	// rounds may be needed.
	from := restart()
	testrun.Eventually(t, 10*time.Second, "restart_lsn moved on from "+from+" after the confirmations and checkpoints", func() bool {
		if _, err := b.pool.Exec(ctx, `CHECKPOINT`); err != nil {
			t.Fatal(err)
		}
		must[RelayStepResult](t)(r.Step(ctx))
		return moved(from)
	})
}
