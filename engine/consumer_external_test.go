package engine

import (
	"context"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/provider"
)

// startProvider runs the card provider on a real loopback listener, its
// store in the test's database.
func (b *bundle) startProvider(t *testing.T) Provider {
	t.Helper()
	srv, err := provider.Start(b.pool, b.clock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	return HTTPProvider{URL: srv.URL()}
}

func (b *bundle) externalConsumer(t *testing.T, mode External, prov Provider, hook Hook) *Consumer {
	c := NewConsumer(ConsumerConfig{Name: "accounting", Connect: b.connect, Subscriber: b.broker, Clock: b.clock,
		Hook: hook, Counters: b.counters, External: mode, Provider: prov})
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// S19: each way of making an external effect, crashed at each of its
// checkpoints, then restarted, redelivered and drained (the sender too):
// what the provider's database holds says which ways lose or double a charge.
func TestExternalEffectCrashes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mode    External
		crash   Checkpoint
		charges int64 // rows in provider.charges at the end
	}{
		{ExternalMarkerBefore, ConsumerEffectApplied, 1},
		{ExternalMarkerBefore, ConsumerCommitted, 0}, // marked, never charged: lost
		{ExternalMarkerBefore, ConsumerCalled, 1},
		{ExternalMarkerAfter, ConsumerEffectApplied, 1},
		{ExternalMarkerAfter, ConsumerCalled, 2}, // charged, rolled back, charged again
		{ExternalMarkerAfter, ConsumerCommitted, 1},
		{ExternalProviderKey, ConsumerEffectApplied, 1},
		{ExternalProviderKey, ConsumerCalled, 1}, // the second call is replayed
		{ExternalProviderKey, ConsumerCommitted, 1},
		{ExternalSecondOutbox, ConsumerEffectApplied, 1},
		{ExternalSecondOutbox, ConsumerCommitted, 1},
		{ExternalSecondOutbox, SenderCalled, 1}, // sent again with the key: replayed
		{ExternalSecondOutbox, SenderMarked, 1},
	}
	for _, tc := range cases {
		t.Run(string(tc.mode)+"/"+string(tc.crash), func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			ctx := context.Background()
			prov := b.startProvider(t)
			resp := b.publishPayment(t)
			hook := faultAt(tc.crash, ErrCrash)
			var sendHook Hook
			if tc.crash == SenderCalled || tc.crash == SenderMarked {
				hook, sendHook = nil, hook
			}
			_, err := b.externalConsumer(t, tc.mode, prov, hook).Step(ctx)
			if hook != nil {
				mustErrIs(t, err, ErrCrash)
			} else if err != nil {
				t.Fatal(err)
			}
			b.clock.Advance(30 * time.Second)
			restarted := b.externalConsumer(t, tc.mode, prov, nil)
			for {
				res := must[ConsumeResult](t)(restarted.Step(ctx))
				if res.Idle {
					break
				}
			}
			if tc.mode == ExternalSecondOutbox {
				s := NewSender(SenderConfig{Connect: b.connect, Clock: b.clock, Hook: sendHook, Provider: prov})
				_, err := s.Step(ctx)
				if sendHook != nil {
					mustErrIs(t, err, ErrCrash)
				} else if err != nil {
					t.Fatal(err)
				}
				s = NewSender(SenderConfig{Connect: b.connect, Clock: b.clock, Provider: prov})
				for {
					res := must[SendResult](t)(s.Step(ctx))
					if res.Idle {
						break
					}
				}
				_ = s.Close(ctx)
				if n := b.count(t, "SELECT count(*) FROM effect_outbox WHERE sent_at IS NULL"); n != 0 {
					t.Errorf("%d charges left unsent in the second outbox", n)
				}
			}
			if n := b.count(t, "SELECT count(*) FROM provider.charges WHERE payment_id = $1", resp.PaymentID); n != tc.charges {
				t.Errorf("provider charges %d, want %d", n, tc.charges)
			}
			if n := b.count(t, "SELECT count(*) FROM ledger_entries"); n != 1 {
				t.Errorf("ledger entries %d, want 1 (the inbox covers the local effect in every mode)", n)
			}
			if st := b.broker.Stats(); st.InFlight["accounting"] != 0 || st.Queued["accounting"] != 0 {
				t.Errorf("left with the broker: %+v %+v", st.InFlight, st.Queued)
			}
		})
	}
}

func TestParseExternal(t *testing.T) {
	for _, e := range Externals {
		if got, err := ParseExternal(string(e)); err != nil || got != e {
			t.Errorf("ParseExternal(%q) = %q, %v", e, got, err)
		}
	}
	if _, err := ParseExternal("marker"); err == nil {
		t.Error("ParseExternal(marker) accepted")
	}
}
