package sim

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/scenes"
)

// parseScene reads a scene written the way a user writes one, in a file of
// their own.
func parseScene(t *testing.T, name, text string) *scenes.Scene {
	t.Helper()
	sc, err := scenes.Parse(name, name+".scene", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// newSim starts a simulator on fresh databases and closes it with the test.
func newSim(t *testing.T, sc *scenes.Scene) *Sim {
	t.Helper()
	s, err := New(context.Background(), Config{Server: serverFor(t, sc.Settings, sc.Steps), Settings: sc.Settings, DBPrefix: prefix()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func doAll(t *testing.T, s *Sim, steps []scenes.Step) {
	t.Helper()
	for _, st := range steps {
		if err := s.Do(context.Background(), st); err != nil {
			t.Fatalf("line %d: %v", st.Line, err)
		}
	}
}

func oracleOf(t *testing.T, s *Sim, pipeline string) Oracle {
	t.Helper()
	os, err := s.Oracles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range os {
		if o.Pipeline == pipeline {
			return o
		}
	}
	t.Fatalf("no %s pipeline", pipeline)
	return Oracle{}
}

// A lease given back (here by schedule_retry, which sets lock_id to NULL) is
// not held any more: the next claim before its old locked_until is no double
// lease: the oracle reads the leases held now, not every claim it saw.
func TestDoubleLeasesCountOnlyLeasesStillHeld(t *testing.T) {
	t.Parallel()
	sc := parseScene(t, "given-back", `title: a lease given back
teaches: a retry releases the lease
relays: 2
batch: 1
broker down
request
finish api
until relay-1 relay.retry_scheduled
finish relay-1
advance 3s
broker up
finish relay-2
drain
expect outbox double_leases == 0
expect outbox lost_events == 0
`)
	res := run(t, sc, RunOptions{})
	if !res.Held {
		t.Fatalf("expected outcome did not hold:\n%s", explainFailure(res))
	}
}

// The figure is read from the table: a second worker's lease written over a
// lease that still runs (what a claim without SKIP LOCKED or without the lease
// condition would do) is counted, and named.
func TestDoubleLeaseIsReadFromTheTable(t *testing.T) {
	t.Parallel()
	sc := parseScene(t, "foreign", `title: t
teaches: t
request
finish api
until relay-1 relay.claimed
expect outbox double_leases == 0
`)
	s := newSim(t, sc)
	doAll(t, s, sc.Steps)
	if got := oracleOf(t, s, "outbox").DoubleLeases; got != 0 {
		t.Fatalf("double leases before the foreign claim = %d, want 0", got)
	}
	p := s.Pipeline("outbox")
	now := s.Now()
	tag, err := p.pool.Exec(context.Background(),
		`UPDATE outbox_messages SET lock_id = $1, locked_until = $2 WHERE lock_id IS NOT NULL`,
		uuid.New(), now.Add(s.Settings().Lease))
	if err != nil || tag.RowsAffected() != 1 {
		t.Fatalf("foreign claim: %v (%d rows)", err, tag.RowsAffected())
	}
	o := oracleOf(t, s, "outbox")
	if o.DoubleLeases != 1 || o.DoubleLeaseExample == "" {
		t.Fatalf("double leases = %d (example %q), want 1 with its id", o.DoubleLeases, o.DoubleLeaseExample)
	}
}

// A poison version 1 is dead-lettered, version 2 published: consumers refuse
// version 2 on every delivery. The drain stops, says why, and the scene's
// next line (the requeue) runs.
func TestDrainStopsBehindADeadLetterAndSaysWhy(t *testing.T) {
	t.Parallel()
	sc := parseScene(t, "blocked", `title: t
teaches: t
max-attempts: 3
request poison
capture
drain
requeue
expect outbox dead_lettered == 0
expect outbox pending == 1
`)
	res := run(t, sc, RunOptions{})
	var why string
	for _, e := range res.Timeline {
		if e.Kind == "stuck" {
			why = e.Explain
		}
	}
	if !strings.Contains(why, "version 2 waits for version 1") || !strings.Contains(why, "`requeue` it") {
		t.Fatalf("the drain did not say what blocks it: %q\n%s", why, explainFailure(res))
	}
	requeued := false
	for _, e := range res.Timeline {
		if e.Actor == "operator" && strings.Contains(e.Explain, "requeues") {
			requeued = true
			if !strings.Contains(e.Explain, "attempts back to 0") {
				t.Errorf("requeue says %q; requeue.sql sets attempts to 0", e.Explain)
			}
		}
	}
	if !requeued {
		t.Fatalf("the requeue after the drain never ran:\n%s", explainFailure(res))
	}
	if !res.Held {
		t.Fatalf("expected outcome did not hold:\n%s", explainFailure(res))
	}
}

// Close closes every actor's connection, not only the simulator's pool.
func TestCloseLeavesNoBackends(t *testing.T) {
	t.Parallel()
	sc := parseScene(t, "closed", `title: t
teaches: t
relays: 2
request
finish api
until relay-1 relay.published
step accounting
expect outbox payments == 1
`)
	srv := serverFor(t, sc.Settings, sc.Steps)
	s, err := New(context.Background(), Config{Server: srv, Settings: sc.Settings, DBPrefix: prefix()})
	if err != nil {
		t.Fatal(err)
	}
	doAll(t, s, sc.Steps)
	db := s.Pipeline("outbox").db
	s.Close()
	pool, err := srv.Pool(context.Background(), "postgres")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	// A backend exits a moment after its client closed the connection
	// (the suite once found one still listed): each must be gone within
	// seconds, where a connection Close left open would stay for good.
	testrun.Awaited(t, 10*time.Second, "no backend left on "+db+" after Close", func() int {
		var n int
		if err := pool.QueryRow(context.Background(), sqlBackends, db).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}, func(n int) bool { return n == 0 })
}

// A run in which no expectation applies is no pass.
func TestNoExpectationAppliedIsNotAPass(t *testing.T) {
	t.Parallel()
	sc := parseScene(t, "outbox-only", `title: t
teaches: t
request
drain
expect outbox lost_events == 0
`)
	res := run(t, sc, RunOptions{Mode: "naive"})
	if res.Held {
		t.Fatalf("a naive run of outbox-only expectations passed:\n%s", explainFailure(res))
	}
	if !res.NoneApplied {
		t.Fatalf("NoneApplied is false")
	}
	if out := explainFailure(res); !strings.Contains(out, "no expectation applies") {
		t.Fatalf("the summary does not say so:\n%s", out)
	}
	sums := res.Summaries("")
	if len(sums) != 1 || len(sums[0].Expectations) != 1 || !sums[0].Expectations[0].Skipped || sums[0].Expectations[0].Line != 5 {
		t.Fatalf("the JSON summary leaves out the skipped expectation: %+v", sums)
	}

	// Expectations that all belong to variants: said as such.
	only := parseScene(t, "only-variant", `title: t
teaches: t
variant: wrong consumer: select-then-insert
request
drain
expect variant=wrong outbox ledger_entries == 1
`)
	res = run(t, only, RunOptions{})
	if out := explainFailure(res); res.Held || !strings.Contains(out, "they all belong to variants (wrong)") {
		t.Fatalf("held %v:\n%s", res.Held, out)
	}
}

// A drain does not stop while an ACK deadline to come can still change
// things: version 2 is refused while version 1 waits, unACKed, with the
// broker after its consumer crashed; at the ack timeout version 1 is
// redelivered and both apply.
func TestDrainWaitsForAnAckDeadline(t *testing.T) {
	t.Parallel()
	for _, order := range []string{"none", "by-aggregate"} {
		sc := parseScene(t, "gap-crash", `title: t
teaches: t
order: `+order+`
request
capture
finish api
finish relay-1
crash accounting at consumer.inbox_inserted
drain
expect outbox ledger_entries == 1
expect outbox lost_events == 0
expect outbox pending == 0
`)
		res := run(t, sc, RunOptions{})
		if !res.Held {
			t.Fatalf("order %s:\n%s", order, explainFailure(res))
		}
		for _, e := range res.Timeline {
			if e.Kind == "stuck" {
				t.Errorf("order %s: the drain said it was stuck: %s", order, e.Explain)
			}
		}
	}
}

// A crash of the relay that holds its transaction while publishing leaves no
// lease: the explanation says so instead of promising one.
func TestHoldTransactionCrashLeavesNoLease(t *testing.T) {
	t.Parallel()
	sc := parseScene(t, "hold", `title: t
teaches: t
relay: hold-transaction
crash relay-1 at relay.published
request
drain
expect outbox payments == 1
`)
	res := run(t, sc, RunOptions{})
	for _, e := range res.Timeline {
		if e.Kind == "crash" && !strings.Contains(e.Explain, "no lease is left") {
			t.Errorf("crash explained as %q", e.Explain)
		}
	}
}

// The figures an expect line may name (scenes.Figures) are exactly the
// oracle's, so run --json emits every one of them.
func TestFigureNamesMatchTheOracle(t *testing.T) {
	t.Parallel()
	var o Oracle
	got := o.Figures()
	if len(got) != len(scenes.Figures) {
		t.Fatalf("oracle has %d figures, scenes.Figures %d", len(got), len(scenes.Figures))
	}
	for i, name := range scenes.Figures {
		if got[i].Name != name {
			t.Errorf("figure %d: oracle %q, scenes %q", i, got[i].Name, name)
		}
	}
}

// A fault on an actor the scene does not run is refused with the reason, up
// front and when typed; an actor of the pipeline a mode leaves out is skipped
// without claiming to be armed.
func TestFaultOnAnAbsentActorIsRefused(t *testing.T) {
	t.Parallel()
	sc := parseScene(t, "absent", `title: t
teaches: t
request
crash relay-2 at relay.claimed
drain
expect outbox payments == 1
`)
	_, err := RunScene(context.Background(), pgtest.Server(t), sc, RunOptions{DBPrefix: prefix()})
	var script *ScriptError
	if !errors.As(err, &script) || !strings.Contains(err.Error(), "absent.scene:4") || !strings.Contains(err.Error(), "relays: 1") {
		t.Fatalf("err = %v, want a ScriptError at absent.scene:4 naming relays: 1", err)
	}
	s := newSim(t, sc)
	err = s.Do(context.Background(), scenes.Step{Cmd: "stall", Args: []string{"accounting-2", "at", "consumer.acked"}})
	if !errors.As(err, &script) || !strings.Contains(err.Error(), "workers: 1") {
		t.Fatalf("stall accounting-2: %v", err)
	}
	if err := s.Do(context.Background(), scenes.Step{Cmd: "crash", Args: []string{"naive", "at", "naive.committed"}}); err != nil {
		t.Fatalf("crash naive in outbox mode: %v", err)
	}
	for _, e := range s.Timeline(0) {
		if strings.HasPrefix(e.Explain, "armed:") {
			t.Errorf("timeline says %q for an actor that does not run", e.Explain)
		}
	}
}

// Commands that make no sense in the state the run is in are the script's
// mistakes (run exits 2), told apart from the simulator's failures.
func TestScriptMistakesAreScriptErrors(t *testing.T) {
	t.Parallel()
	sc := parseScene(t, "mistakes", "title: t\nteaches: t\nrequest\nexpect outbox payments == 1\n")
	s := newSim(t, sc)
	for _, st := range []scenes.Step{
		{Cmd: "capture"},
		{Cmd: "resume", Args: []string{"relay-1"}},
		{Cmd: "restart", Args: []string{"accounting"}},
		{Cmd: "resend"},
	} {
		var script *ScriptError
		if err := s.Do(context.Background(), st); !errors.As(err, &script) {
			t.Errorf("%s: err = %v, want a ScriptError", st, err)
		}
	}
}

// A run that does not settle within the step limit names what kept moving.
// Not parallel: it lowers the package's step limit while it runs.
func TestStepLimitNamesWhatKeepsMoving(t *testing.T) {
	saved := maxSteps
	maxSteps = 12
	t.Cleanup(func() { maxSteps = saved })
	sc := parseScene(t, "busy", "title: t\nteaches: t\nrequest\nrequest\nrequest\nrun\nexpect outbox payments == 3\n")
	_, err := RunScene(context.Background(), pgtest.Server(t), sc, RunOptions{DBPrefix: prefix()})
	if err == nil || !strings.Contains(err.Error(), "still moving after 12 steps") || !strings.Contains(err.Error(), "moved") ||
		!strings.Contains(err.Error(), "the last step:") {
		t.Fatalf("err = %v", err)
	}
	t.Log(err)
}

// The broker's view says a duplicate is armed, and stops saying it once the
// doubled delivery went out.
func TestDuplicateArmedIsVisible(t *testing.T) {
	t.Parallel()
	sc := parseScene(t, "dup", "title: t\nteaches: t\nduplicate\nexpect outbox payments == 0\n")
	s := newSim(t, sc)
	doAll(t, s, sc.Steps)
	armed := func() bool {
		for _, a := range s.Actors() {
			if a.Name == "broker" {
				return slices.Contains(a.Armed, "duplicate")
			}
		}
		return false
	}
	if !armed() {
		t.Fatal("duplicate not shown armed on the broker")
	}
	doAll(t, s, parseScene(t, "r", "title: t\nteaches: t\nrequest\ndrain\nexpect outbox payments == 1\n").Steps)
	if armed() {
		t.Fatal("still armed after the doubled delivery")
	}
}

// resend key=K repeats the request sent with that key, not whichever was
// sent last: the learner's payment, not the script's.
func TestResendByKey(t *testing.T) {
	t.Parallel()
	sc := parseScene(t, "rk", `title: t
teaches: t
request key=mine amount=700
request amount=900
resend key=mine
drain
expect outbox payments == 2
expect outbox replays == 1
`)
	res := run(t, sc, RunOptions{})
	if !res.Held {
		t.Fatalf("%s", explainFailure(res))
	}
}

// In compare mode, restart of an actor both pipelines run brings back the
// copy that crashed and leaves the other alone.
func TestRestartTheCrashedCopyOnly(t *testing.T) {
	t.Parallel()
	sc := parseScene(t, "copies", "title: t\nteaches: t\nmode: compare\nrequest\ncrash outbox/notifications at consumer.inbox_inserted\ndrain\nexpect outbox payments == 1\n")
	s := newSim(t, sc)
	doAll(t, s, sc.Steps[:2])
	if err := s.Do(context.Background(), scenes.Step{Cmd: "run"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Do(context.Background(), scenes.Step{Cmd: "restart", Args: []string{"notifications"}}); err != nil {
		t.Fatalf("restart notifications with one copy crashed: %v", err)
	}
	err := s.Do(context.Background(), scenes.Step{Cmd: "restart", Args: []string{"notifications"}})
	var script *ScriptError
	if !errors.As(err, &script) {
		t.Fatalf("restart with no copy crashed: %v, want the script's mistake", err)
	}
}

// A command that finds nothing to do says so on the timeline, so a key that
// moved nothing is not silent.
func TestNothingToDoIsSaid(t *testing.T) {
	t.Parallel()
	sc := parseScene(t, "idle", "title: t\nteaches: t\nrequeue\ndrain\nstep api\nfinish relay-1\nexpect outbox payments == 0\n")
	s := newSim(t, sc)
	doAll(t, s, sc.Steps)
	var notes []string
	for _, e := range s.Timeline(0) {
		if e.Kind == "note" {
			notes = append(notes, e.Explain)
		}
	}
	want := []string{"nothing is dead-lettered: requeue has nothing to do", "nothing is pending: the drain has nothing to do", "api has nothing to do now", "relay-1 has nothing to do now"}
	if !slices.Equal(notes, want) {
		t.Fatalf("notes %q, want %q", notes, want)
	}
}
