package sim

import (
	"context"
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/scenes"
)

// sceneOf parses a scene written inline, for a test.
func sceneOf(t *testing.T, text string) *scenes.Scene {
	t.Helper()
	sc, err := scenes.Parse("http", "http.scene", strings.NewReader(text+"expect outbox lost_events == 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// A request that came over HTTP is the api actor's work like any other:
// its answer (or, when the api dies with it in flight, a reset) is kept for
// the client by its ticket, and only the outbox's api answers it in compare
// mode. The session's log keeps the request without the ticket.
func TestHTTPRequestsAreAnsweredByTicket(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	base := sceneOf(t, "title: t\nteaches: t\nmode: compare\nadvance 1s\n")
	se, err := NewSession(ctx, Config{Server: serverFor(t, base.Settings, base.Steps), Settings: base.Settings, DBPrefix: prefix()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(se.Close)
	s := se.Sim()
	do := func(line string) {
		t.Helper()
		sc := sceneOf(t, "title: t\nteaches: t\nmode: compare\n"+line+"\n")
		if _, err := se.Do(ctx, sc.Steps[0]); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	s.SetTicket(7)
	do("request amount=4200 client=shop key=k-1 currency=USD trace=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	if got := s.TakeAnswers(); len(got) != 0 {
		t.Fatalf("answered before the api ran: %+v", got)
	}
	do("finish api")
	do("finish naive")
	got := s.TakeAnswers()
	if len(got) != 1 || got[0].Ticket != 7 || got[0].Err != nil || got[0].Reset || got[0].Resp.StatusCode != engine.StatusCreated ||
		got[0].Resp.AmountCents != 4200 || got[0].Resp.Currency != "USD" || got[0].Resp.ClientID != "shop" {
		t.Fatalf("answers %+v, want one 201 for ticket 7", got)
	}
	st, err := s.PaymentStatus(ctx, got[0].Resp.PaymentID)
	if err != nil || len(st.Events) != 1 || st.Events[0].State != engine.EventPending {
		t.Fatalf("status %+v, %v: want one pending event", st, err)
	}

	// The api dies after COMMIT with the next request in flight: the client
	// gets a reset; its retry with the same key finds the record.
	do("crash api at api.committed")
	s.SetTicket(8)
	do("request amount=100 client=shop key=k-2")
	do("finish api")
	if got := s.TakeAnswers(); len(got) != 1 || got[0].Ticket != 8 || !got[0].Reset {
		t.Fatalf("answers %+v, want a reset for ticket 8", got)
	}
	do("restart api")
	s.SetTicket(9)
	do("resend key=k-2")
	do("finish api")
	if got := s.TakeAnswers(); len(got) != 1 || got[0].Ticket != 9 || !got[0].Resp.Replayed {
		t.Fatalf("answers %+v, want the stored response for ticket 9", got)
	}
	saved, err := se.Scene(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	if log := saved.Text(); strings.Contains(log, "ticket") || !strings.Contains(log, "currency=USD") {
		t.Errorf("the session's scene:\n%s", log)
	}
}
