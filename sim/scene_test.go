package sim

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	goldenfile "github.com/outboxlab/outboxlab/internal/golden"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/scenes"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var prefixes atomic.Int64

func prefix() string { return fmt.Sprintf("simtest%d", prefixes.Add(1)) }

// serverFor is the server a test runs a scene of these settings and steps
// on. The quiet one (pgtest.Quiet: this test alone on it) for a scene that
// restarts PostgreSQL, which would cut every other test's sessions, or one
// with the CDC relay: making its slot waits for every open transaction on
// the server, a parallel test's parked actor included, and its WAL figure
// counts the whole server's writes. The shared one for any other, so the
// package's tests run in parallel there.
func serverFor(t testing.TB, set scenes.Settings, steps []scenes.Step) *pg.Server {
	t.Helper()
	if set.CDC || slices.ContainsFunc(steps, func(st scenes.Step) bool { return st.Cmd == scenes.CmdRestartPostgres }) {
		return pgtest.Quiet(t)
	}
	return pgtest.Server(t)
}

func run(t *testing.T, sc *scenes.Scene, opts RunOptions) *Result {
	t.Helper()
	set := sc.Settings
	if v, ok := sc.Variants[opts.Variant]; ok {
		set = v
	}
	srv := serverFor(t, set, sc.Steps)
	start := time.Now()
	var res *Result
	var err error
	if srv == pgtest.Server(t) {
		res, err = runPooled(sc, opts, srv)
	} else {
		// A quiet server is the test's alone: nothing stays on it after.
		opts.DBPrefix = prefix()
		res, err = RunScene(context.Background(), srv, sc, opts)
		t.Cleanup(func() { _ = pg.OwnNamespace(opts.DBPrefix).DropAll(context.Background(), srv) })
	}
	if err != nil {
		t.Fatalf("run %s: %v", sc.Name, err)
	}
	t.Logf("%s (%s) ran in %v", sc.Name, opts.Variant, time.Since(start).Round(time.Millisecond))
	return res
}

// sims are simulations on the shared server that a scene's run left,
// parked, each on databases of its own: the next run renews one
// (RunSceneOn) instead of building new databases and a connection per
// actor. TestRunSceneOnARenewedSimIsRunScene holds the two to one run.
var sims = pgtest.NewPool(func(s *Sim) {
	s.Close()
	_ = pg.OwnNamespace(s.dbPrefix).DropAll(context.Background(), s.srv)
})

// sessionFor is a session on sc's settings (none of its steps done), the
// test's until it ends: on the shared server over a simulation of sims,
// renewed, else new on the quiet server.
func sessionFor(t *testing.T, sc *scenes.Scene) *Session {
	t.Helper()
	ctx := context.Background()
	srv := serverFor(t, sc.Settings, sc.Steps)
	if srv != pgtest.Server(t) {
		p := prefix()
		se, err := NewSession(ctx, Config{Server: srv, Settings: sc.Settings, DBPrefix: p})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			se.Close()
			_ = pg.OwnNamespace(p).DropAll(context.Background(), srv)
		})
		return se
	}
	s, err := takeSim(ctx, srv, sc.Settings, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Park()
		sims.Give(s)
	})
	return &Session{sim: s, forked: -1}
}

// takeSim is a simulation of sims for set and seed, renewed for them when
// renew says so (RunSceneOn renews by itself), or a new one on srv; one
// that fails to renew is discarded.
func takeSim(ctx context.Context, srv *pg.Server, set scenes.Settings, seed uint64, renew bool) (*Sim, error) {
	s, ok := sims.Take()
	if !ok {
		return New(ctx, Config{Server: srv, Settings: set, Seed: seed, DBPrefix: prefix()})
	}
	if renew {
		if err := s.Renew(ctx, set, seed); err != nil {
			sims.Discard(s)
			return nil, err
		}
	}
	return s, nil
}

// runPooled runs sc on a simulation of sims, or a new one it then keeps.
func runPooled(sc *scenes.Scene, opts RunOptions, srv *pg.Server) (*Result, error) {
	ctx := context.Background()
	set, err := opts.Settings(sc)
	if err != nil {
		return nil, err
	}
	s, err := takeSim(ctx, srv, set, opts.Seed, false)
	if err != nil {
		return nil, err
	}
	res, err := RunSceneOn(ctx, s, sc, opts)
	if err != nil {
		sims.Discard(s)
		return nil, err
	}
	s.Park()
	sims.Give(s)
	return res, nil
}

// builtinRuns are the built-in scenes' runs, each made once for the tests
// that read the same one (TestBuiltinScenesHold, and
// TestPlayingAScriptEndsWhereItsRunEnds, which compares its play to it): a
// run is a function of the scene's text and variant, as the golden
// timelines show, and a fresh one costs its databases and a connection per
// actor.
var builtinRuns sync.Map // scene text + "\x00" + variant → *builtinRun

type builtinRun struct {
	once sync.Once
	res  *Result
	fail string
}

// runBuiltin is run for a built-in scene, made once whichever test asks
// first; the others wait for it.
func runBuiltin(t *testing.T, sc *scenes.Scene, variant string) *Result {
	t.Helper()
	v, _ := builtinRuns.LoadOrStore(sc.Text()+"\x00"+variant, &builtinRun{})
	br := v.(*builtinRun)
	br.once.Do(func() {
		// t.Fatalf in run would leave the others nothing: run it in a
		// subtest of the first asker, and say its failure to all.
		t.Run("run", func(t *testing.T) { br.res = run(t, sc, RunOptions{Variant: variant}) })
		if br.res == nil {
			br.fail = fmt.Sprintf("run %s (%s) failed; see the first test that ran it", sc.Name, variant)
		}
	})
	if br.fail != "" {
		t.Fatal(br.fail)
	}
	return br.res
}

func explainFailure(res *Result) string {
	var b bytes.Buffer
	res.WriteText(&b)
	return b.String()
}

// Every built-in scene's expected outcome holds, and so does each variant's.
func TestBuiltinScenesHold(t *testing.T) {
	t.Parallel()
	all, err := scenes.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range all {
		variants := []string{""}
		for v := range sc.Variants {
			variants = append(variants, v)
		}
		for _, v := range variants {
			t.Run(sc.Name+"/"+v, func(t *testing.T) {
				res := runBuiltin(t, sc, v)
				if !res.Held {
					t.Errorf("expected outcome did not hold:\n%s", explainFailure(res))
				}
				golden(t, sc.Name, v, res.Timeline)
				if len(res.Checks) == 0 {
					t.Errorf("no expectation was checked")
				}
			})
		}
	}
}

func figure(t *testing.T, res *Result, pipeline, name string) int64 {
	t.Helper()
	for _, o := range res.Oracles {
		if o.Pipeline == pipeline {
			v, err := o.Figure(name)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
	}
	t.Fatalf("no %s pipeline ran", pipeline)
	return 0
}

// The naive pipeline shows the loss (S1) and the phantom (S2) that the
// outbox pipeline, under the same requests and faults, does not.
func TestNaiveLosesAndInventsOutboxDoesNot(t *testing.T) {
	t.Parallel()
	all, err := scenes.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	crash, _ := scenes.Find(all, "dual-write-crash")
	res := run(t, crash, RunOptions{Mode: "compare"})
	if got := figure(t, res, "naive", "lost_events"); got != 1 {
		t.Errorf("naive lost_events = %d, want 1\n%s", got, explainFailure(res))
	}
	if got := figure(t, res, "outbox", "lost_events"); got != 0 {
		t.Errorf("outbox lost_events = %d, want 0", got)
	}
	phantom, _ := scenes.Find(all, "dual-write-phantom")
	res = run(t, phantom, RunOptions{Mode: "compare"})
	if got := figure(t, res, "naive", "phantom_effects"); got == 0 {
		t.Errorf("naive phantom_effects = 0, want the phantom\n%s", explainFailure(res))
	}
	if got := figure(t, res, "outbox", "phantom_effects"); got != 0 {
		t.Errorf("outbox phantom_effects = %d, want 0", got)
	}
}

// The same scene with the same seed yields the same timeline, to the letter.
func TestSameSeedSameTimeline(t *testing.T) {
	t.Parallel()
	all, err := scenes.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"lease-expired", "broker-down", "dual-write-crash"} {
		sc, _ := scenes.Find(all, name)
		a := run(t, sc, RunOptions{Seed: 42})
		b := run(t, sc, RunOptions{Seed: 42})
		var ja, jb bytes.Buffer
		if err := WriteJSONLines(&ja, a.Timeline); err != nil {
			t.Fatal(err)
		}
		if err := WriteJSONLines(&jb, b.Timeline); err != nil {
			t.Fatal(err)
		}
		if ja.String() != jb.String() {
			la, lb := strings.Split(ja.String(), "\n"), strings.Split(jb.String(), "\n")
			for i := range la {
				if i >= len(lb) || la[i] != lb[i] {
					t.Fatalf("%s: timelines differ at entry %d:\n%s\n%s", name, i+1, la[i], lb[min(i, len(lb)-1)])
				}
			}
			t.Fatalf("%s: second timeline is longer", name)
		}
		if len(a.Timeline) < 5 {
			t.Errorf("%s: suspiciously short timeline (%d entries)", name, len(a.Timeline))
		}
	}
}

// Another seed changes what depends on it (ids, jitter) but not the outcome.
func TestOtherSeedSameOutcome(t *testing.T) {
	t.Parallel()
	all, _ := scenes.Builtin()
	sc, _ := scenes.Find(all, "broker-down")
	a := run(t, sc, RunOptions{Seed: 1})
	b := run(t, sc, RunOptions{Seed: 2})
	if !a.Held || !b.Held {
		t.Fatalf("outcome did not hold: seed 1 %v, seed 2 %v", a.Held, b.Held)
	}
	if a.Timeline[0].PaymentID == b.Timeline[0].PaymentID {
		t.Errorf("seeds 1 and 2 made the same payment id %s", a.Timeline[0].PaymentID)
	}
}

// golden compares a built-in scene's timeline with the one stored beside the
// tests, line by line: a change of order that keeps the totals is caught
// here, which the expectations cannot see. -update stores this run's.
func golden(t *testing.T, scene, variant string, tl []Entry) {
	t.Helper()
	name := scene
	if variant != "" {
		name += "." + variant
	}
	path := filepath.Join("testdata", "timelines", name+".txt")
	var b bytes.Buffer
	for _, e := range tl {
		WriteEntry(&b, e)
	}
	goldenfile.Check(t, path, b.String(), firstDiff)
}

// A scene run on a simulation renewed from other runs, each parked after
// it, is the run RunScene makes on new databases: the same timeline and
// figures, whatever ran before (a stalled relay, the other mode, more
// relays). A parked simulation holds nothing open on the server.
func TestRunSceneOnARenewedSimIsRunScene(t *testing.T) {
	t.Parallel()
	// Whichever way a reset empties the tables: truncated (the default)
	// or deleted (a chaos worker's), identities restarted either way.
	for _, reset := range []ResetKind{ResetTruncate, ResetDelete} {
		t.Run(fmt.Sprint(reset), func(t *testing.T) {
			t.Parallel()
			renewedIsNew(t, reset)
		})
	}
}

func renewedIsNew(t *testing.T, reset ResetKind) {
	ctx := context.Background()
	srv := pgtest.Server(t)
	all, err := scenes.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(ctx, Config{Server: srv, DBPrefix: prefix(), Reset: reset})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sims.Discard(s) })
	admin, err := pgx.Connect(ctx, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	// A run that ends with a consumer stalled inside its transaction,
	// which Park must end.
	stalled := parseScene(t, "stalled", `title: stalled in its transaction
teaches: what Park ends
mode: outbox
request
finish api
finish relay-1
stall accounting at consumer.effect_applied
finish accounting
expect outbox published == 1
`)
	for _, name := range []string{"lease-expired", "stalled", "dual-write-crash", "zombie-relay", "stalled", "lease-expired"} {
		sc := stalled
		if name != sc.Name {
			if sc, err = scenes.Find(all, name); err != nil {
				t.Fatal(err)
			}
		}
		renewed, err := RunSceneOn(ctx, s, sc, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s.Park()
		var open int
		// Its own databases by name: a prefix of this one's names another
		// subtest's (sim1, sim12).
		var names []string
		for _, kind := range pg.PipelineKinds() {
			names = append(names, pg.NamespaceOf(s.dbPrefix).Database(kind))
		}
		if err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = ANY($1) AND state <> 'idle'`, names).Scan(&open); err != nil {
			t.Fatal(err)
		}
		if open != 0 {
			t.Errorf("%s parked: %d of its sessions are not idle", name, open)
		}
		p := prefix()
		t.Cleanup(func() { _ = pg.OwnNamespace(p).DropAll(context.Background(), srv) })
		fresh, err := RunScene(ctx, srv, sc, RunOptions{DBPrefix: p})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := explainFailure(renewed), explainFailure(fresh); got != want {
			t.Errorf("%s renewed:\n%s\nnew:\n%s", name, got, want)
		}
	}
	// Renewed, every identity starts over, as TRUNCATE ... RESTART
	// IDENTITY makes it: no sequence has a value drawn.
	if err := s.Renew(ctx, scenes.Settings{}, 0); err != nil {
		t.Fatal(err)
	}
	for _, kind := range pg.PipelineKinds() {
		db := pg.NamespaceOf(s.dbPrefix).Database(kind)
		conn, err := pgx.Connect(ctx, srv.DatabaseURL(db))
		if err != nil {
			t.Fatal(err)
		}
		var drawn []string
		err = conn.QueryRow(ctx, `SELECT coalesce(array_agg(schemaname || '.' || sequencename), '{}') FROM pg_sequences WHERE last_value IS NOT NULL`).Scan(&drawn)
		conn.Close(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(drawn) > 0 {
			t.Errorf("%s renewed: sequences %v keep the last run's values", db, drawn)
		}
	}
}
