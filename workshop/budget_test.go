package workshop

import (
	"context"
	"runtime"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/outboxlab/outboxlab/lessons"
)

// TestALearnersConnectionBudgetIsEnforced: ana and bea connect; the test
// opens connections as ana's role (as a psql of hers would) until
// PostgreSQL refuses one: it is refused at her budget, with SQLSTATE
// 53300, while bea opens one and passes her step by keys and ana's
// simulator says her connections are all in use (not a crash, not "down"
// without the reason). Both leave: no role, database, backend or
// goroutine of theirs is left.
func TestALearnersConnectionBudgetIsEnforced(t *testing.T) {
	r := startRoom(t, Config{MaxLearners: 2})
	goroutinesBefore := runtime.NumGoroutine()
	ana := connect(t, r, "ana", 120, 40, nil)
	bea := connect(t, r, "bea", 120, 40, nil)
	for _, id := range []string{"ana", "bea"} {
		waitLearner(t, r, id, "running", func(v LearnerView) bool { return v.Ready })
	}
	r.mu.Lock()
	anaURL := r.learners["ana"].srv.DatabaseURL("ws_ana_outbox")
	beaURL := r.learners["bea"].srv.DatabaseURL("ws_bea_outbox")
	r.mu.Unlock()

	var held []*pgx.Conn
	defer func() {
		for _, c := range held {
			c.Close(context.Background())
		}
	}()
	var refused error
	for range perLearner() + 1 {
		c, err := pgx.Connect(t.Context(), anaURL)
		if err != nil {
			refused = err
			break
		}
		held = append(held, c)
	}
	if refused == nil {
		t.Fatalf("ana's role opened %d connections; her budget is %d", perLearner()+1, perLearner())
	}
	if !OverBudget(refused) {
		t.Fatalf("ana's connection past her budget failed otherwise: %v", refused)
	}
	if n := count(t, r, "postgres", `SELECT count(*) FROM pg_stat_activity WHERE usename = 'ws_ana' AND backend_type = 'client backend'`); n != perLearner() {
		t.Errorf("ana's role holds %d backends at the refusal; her budget is %d", n, perLearner())
	}
	t.Logf("ana's connection %d: %v", len(held)+1, refused)

	c, err := pgx.Connect(t.Context(), beaURL)
	if err != nil {
		t.Fatalf("bea could not connect while ana's budget is spent: %v", err)
	}
	c.Close(context.Background())
	ana.keys("p", "D") // her simulator's actors find no connection: it must say so, not end
	bea.keys("p", "D")
	waitLearner(t, r, "bea", "past her step while ana's budget is spent", func(v LearnerView) bool { return v.Place == lessons.PlacePassed })
	if v := waitLearner(t, r, "ana", "", func(LearnerView) bool { return true }); !v.Connected {
		t.Errorf("ana's session ended when her budget was spent: %+v", v)
	}
	const said = "every connection allowed is in use (too many connections for role"
	ana.waitText(said)

	for _, c := range held {
		c.Close(context.Background())
	}
	held = nil
	_ = ana.client.Close()
	_ = bea.client.Close()
	waitGone(t, r, "ana")
	waitGone(t, r, "bea")
	for what, sql := range map[string]string{
		"roles":     `SELECT count(*) FROM pg_roles WHERE rolname LIKE 'ws\_%'`,
		"databases": `SELECT count(*) FROM pg_database WHERE datname LIKE 'ws\_%'`,
		"backends":  `SELECT count(*) FROM pg_stat_activity WHERE usename LIKE 'ws\_%' OR datname LIKE 'ws\_%'`,
	} {
		if n := count(t, r, "postgres", sql); n != 0 {
			t.Errorf("%d learners' %s left after both left", n, what)
		}
	}
	waitGoroutines(t, goroutinesBefore)
}
