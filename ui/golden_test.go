package ui

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/engine"
	goldenfile "github.com/outboxlab/outboxlab/internal/golden"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
)

// TestMain runs the tests with colours whatever the shell says: the goldens
// are drawn as a colour terminal draws them (a test of NO_COLOR sets it).
func TestMain(m *testing.M) {
	os.Unsetenv("NO_COLOR")
	// A lesson played by keys waits for each key's quiet moment more than
	// it computes: alone the package took 182 s at -parallel 2 and 153 s
	// at 4. Its longest test, TestEveryLessonByKeysAlone, then waited
	// 18-21 s for a slot; at 16 (two cores) every test starts at once:
	// 77 s -> 64-66 s of wall, 117 s -> 110-114 s of CPU (lessons eight
	// at a time either way).
	testrun.WaitMostly(8)
	pgtest.Main(m)
}

// golden compares a view, ANSI stripped and trailing spaces trimmed, with
// testdata/name.golden.
func golden(t *testing.T, name, view string) {
	t.Helper()
	compareGolden(t, name, filepath.Join("testdata", name+".golden"), plain(view), "%s")
}

// goldenANSI is golden with the colours kept: for panes where colour
// carries the meaning (a red violation, a green ✓), a change of colour is a
// change of what the screen says. The file holds the escapes as they are.
func goldenANSI(t *testing.T, name, view string) {
	t.Helper()
	lines := strings.Split(view, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	compareGolden(t, name, filepath.Join("testdata", name+".ansi.golden"), strings.Join(lines, "\n")+"\n", "%q")
}

// compareGolden writes got to path under -update, else compares them; show
// formats each side of a difference.
func compareGolden(t *testing.T, name, path, got, show string) {
	t.Helper()
	goldenfile.Check(t, path, got, func(got, want string) string { return name + ": " + goldenfile.Full(show)(got, want) })
}

func plain(view string) string {
	lines := strings.Split(ansi.Strip(view), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

func testStyles() *Styles {
	st := DefaultStyles(true)
	return &st
}

var t0 = sim.Epoch

// fixtures: a crash-after-publish run caught after the relay's restart.
func fixtureActors() []sim.ActorView {
	return []sim.ActorView{
		{Pipeline: "outbox", Name: "api", State: sim.Idle},
		{Pipeline: "outbox", Name: "relay-1", State: sim.Paused, At: engine.RelayPublished},
		{Pipeline: "outbox", Name: "relay-2", State: sim.Crashed, At: engine.RelayClaimed},
		{Pipeline: "outbox", Name: "accounting", State: sim.Paused, At: engine.ConsumerDuplicate},
		{Pipeline: "outbox", Name: "notifications", State: sim.Stalled, At: engine.ConsumerInboxInserted, Armed: []string{"crash at consumer.acked"}},
		{Pipeline: "outbox", Name: "broker", State: sim.Idle},
	}
}

func fixtureCompareActors() []sim.ActorView {
	return append([]sim.ActorView{
		{Pipeline: "naive", Name: "naive", State: sim.Crashed, At: engine.NaiveCommitted},
		{Pipeline: "naive", Name: "accounting", State: sim.Idle},
		{Pipeline: "naive", Name: "notifications", State: sim.Idle},
		{Pipeline: "naive", Name: "broker", State: sim.Down},
	}, fixtureActors()...)
}

func fixtureOracles() []sim.Oracle {
	return []sim.Oracle{
		{Pipeline: "naive", Payments: 1, LostEvents: 1, LostExample: "0190f5a2-7c1e-7000-8000-00000000000a", Crashes: 1},
		{Pipeline: "outbox", Payments: 1, OutboxRows: 1, Published: 1, Publishes: 2, Deliveries: 4,
			DuplicatesDelivered: 2, DuplicatesIgnored: 2, Effects: 2, LedgerEntries: 1, Notifications: 1,
			Crashes: 1, MaxAttempts: 2, Pending: 1, OldestPendingAge: 31 * time.Second},
	}
}

func fixtureBadOracle() []sim.Oracle {
	return []sim.Oracle{{Pipeline: "outbox", Payments: 2, OutboxRows: 2, Published: 2, Publishes: 3, Deliveries: 6,
		DuplicatesDelivered: 2, Effects: 5, DuplicateEffects: 1, DuplicateExample: "0190f5a2-7c1e-7000-8000-0000000000bb",
		PhantomEffects: 2, PhantomExample: "0190f5a2-7c1e-7000-8000-0000000000cc",
		SuppressedEffects: 1, SuppressedExample: "0190f5a2-7c1e-7000-8000-0000000000dd"}}
}

func fixtureEntries() []sim.Entry {
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	return []sim.Entry{
		{Seq: 1, At: at(0), Actor: "client", Kind: "command", Explain: "a client asks for a 12.50 EUR payment (payment 0190f5a2…, event 0190f5a3…)",
			Say: &sim.Text{Key: "a client asks for a %s payment (payment %s, event %s%s)", Args: []any{"12.50 EUR", "0190f5a2…", "0190f5a3…", ""}}},
		{Seq: 2, At: at(1), Pipeline: "outbox", Actor: "api", Kind: "checkpoint", Checkpoint: "api.inserted", Statement: "insert_outbox", SQL: "INSERT INTO outbox_messages (id, aggregate_type)\nVALUES ($1, $2)", Rows: 1, Explain: "api inserted payment …0190f5a2 and its outbox row …0190f5a3 in one transaction, not committed yet: a crash now leaves neither",
			Say: &sim.Text{Key: "%s inserted payment %s and its outbox row %s in one transaction, not committed yet: a crash now leaves neither", Args: []any{"api", "…0190f5a2", "…0190f5a3"}}},
		{Seq: 3, At: at(2), Pipeline: "outbox", Actor: "api", Kind: "checkpoint", Checkpoint: "api.committed", Statement: "commit", SQL: "COMMIT", Explain: "api committed payment …0190f5a2 and event …0190f5a3 together: from now on the event cannot be lost",
			Say: &sim.Text{Key: "%s committed payment %s and event %s together: from now on the event cannot be lost", Args: []any{"api", "…0190f5a2", "…0190f5a3"}}},
		{Seq: 4, At: at(3), Pipeline: "outbox", Actor: "relay-1", Kind: "checkpoint", Checkpoint: "relay.claimed", Statement: "claim_batch", SQL: "WITH ready AS (\n  SELECT id FROM outbox_messages\n  FOR UPDATE SKIP LOCKED\n)\nUPDATE outbox_messages SET lock_id = $1", Rows: 1, MessageIDs: []string{"0190f5a3-0000-7000-8000-000000000001"}, Explain: "relay-1 leased 1 row with FOR UPDATE SKIP LOCKED and committed the claim (1 leased until 12:00:30.000): …00000001",
			Say: &sim.Text{Key: "%s leased %d row(s) with FOR UPDATE SKIP LOCKED and committed the claim%s: %s", Args: []any{"relay-1", 1, sim.Text{Key: " (%s)", Args: []any{sim.Text{Key: "%d leased until %s", Args: []any{1, "12:00:30.000"}}}}, "…00000001"}}},
		{Seq: 5, At: at(4), Pipeline: "outbox", Actor: "relay-1", Kind: "crash", Checkpoint: "relay.published", Explain: "relay-1 crashed at relay.published: its connection closed without COMMIT; its lease stays in the table until 12:00:30, then a relay reclaims the row and publishes it again (same id)",
			Say: &sim.Text{Key: "%s crashed at %s: its connection closed without COMMIT; its lease stays in the table until %s, then a relay reclaims the row and publishes it again (same id)", Args: []any{"relay-1", "relay.published", "12:00:30"}}},
		{Seq: 6, At: at(31004), Actor: "clock", Kind: "clock", Explain: "the clock moves 31s forward, to 12:00:31",
			Say: &sim.Text{Key: "the clock moves %s forward, to %s", Args: []any{"31s", "12:00:31"}}},
		{Seq: 7, At: at(31005), Pipeline: "outbox", Actor: "accounting", Kind: "checkpoint", Checkpoint: "consumer.duplicate", Statement: "insert_inbox", Rows: 0, Delivery: 2, Explain: "accounting ignores duplicate …00000001: it commits and ACKs, no second effect",
			Say: &sim.Text{Key: "%s ignores duplicate %s: it commits and ACKs, no second effect", Args: []any{"accounting", "…00000001"}}},
	}
}

func fixtureTable() sim.Table {
	return sim.Table{
		Name:    "outbox_messages",
		Columns: []string{"id", "aggregate", "ver", "att", "lock", "lease until", "next attempt", "published", "dead", "last error"},
		Rows: [][]string{
			{"0190f5a3", "0190f5a2", "1", "2", "-", "-", "12:00:00", "12:00:31", "-", ""},
			{"0190f5a4", "0190f5a2", "2", "1", "7c1e0001", "12:01:01", "12:00:31", "-", "-", ""},
		},
		Keys:   []string{"k1", "k2"},
		Total:  2,
		Offset: 0,
	}
}

func TestPipelinePaneGolden(t *testing.T) {
	for _, tc := range []struct {
		name   string
		w, h   int
		actors []sim.ActorView
	}{
		{"pipeline_outbox_120", 120, 9, fixtureActors()},
		{"pipeline_outbox_80", 80, 5, fixtureActors()},
		{"pipeline_compare_120", 120, 13, fixtureCompareActors()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPipelinePane(testStyles())
			p, _ = p.Update(actorsMsg{tc.actors})
			p, _ = p.Update(oraclesMsg{fixtureOracles()})
			p, _ = p.Update(edgesMsg{[]sim.Edge{
				{Pipeline: "outbox", From: "postgres", To: "relay", Queued: 2, Unacked: 1},
				{Pipeline: "outbox", From: "broker", To: "accounting", Queued: 1, Unacked: 1},
				{Pipeline: "outbox", From: "broker", To: "notifications"},
			}})
			p.SetSize(tc.w, tc.h)
			golden(t, tc.name, p.View())
		})
	}
}

func TestTablesPaneGolden(t *testing.T) {
	p := newTablesPane(testStyles())
	p.reset(nil, 1, []string{"outbox"})
	p.table = 1
	p.SetSize(100, 6)
	p, _ = p.Update(tableMsg{simID: 1, gen: 1, pipeline: "outbox", table: sim.Table{Name: "outbox_messages", Columns: fixtureTable().Columns, Rows: fixtureTable().Rows[:1], Keys: []string{"k1"}, Total: 1}})
	p, _ = p.Update(tableMsg{simID: 1, gen: 2, pipeline: "outbox", table: fixtureTable()})
	if !p.changed["k2"] || p.changed["k1"] {
		t.Errorf("changed = %v, want only k2 (the row the last step added)", p.changed)
	}
	golden(t, "tables_outbox_100", p.View())
	p.focused = true
	p.SetSize(60, 5)
	golden(t, "tables_outbox_60_focused", p.View())
}

func TestTimelinePaneGolden(t *testing.T) {
	p := newTimelinePane(testStyles())
	p, _ = p.Update(timelineMsg{from: 0, entries: fixtureEntries()})
	p.SetSize(120, 9)
	golden(t, "timeline_120", p.View())
	p.SetSize(80, 6)
	golden(t, "timeline_80", p.View())

	// Select the claim and open its SQL.
	p.SetSize(120, 16)
	for range 3 {
		p, _ = p.Update(keyPress("up"))
	}
	p, _ = p.Update(keyPress("enter"))
	golden(t, "timeline_sql_120", p.View())

	// A stale read (from the wrong index) is dropped.
	p, _ = p.Update(timelineMsg{from: 3, entries: fixtureEntries()})
	if p.total != len(fixtureEntries()) {
		t.Errorf("stale timeline read appended: total %d", p.total)
	}
}

func TestGuaranteesPaneGolden(t *testing.T) {
	g := newGuaranteesPane(testStyles())
	g, _ = g.Update(oraclesMsg{fixtureOracles()})
	g.SetSize(100, 10)
	golden(t, "guarantees_compare_100", g.View())
	goldenANSI(t, "guarantees_compare_100", g.View())
	g.SetSize(80, 5)
	golden(t, "guarantees_compact_80", g.compactView())

	g, _ = g.Update(oraclesMsg{fixtureBadOracle()})
	g.SetSize(44, 10)
	golden(t, "guarantees_violations_44", g.View())
	goldenANSI(t, "guarantees_violations_44", g.View())

	// PostgreSQL stopped: no figure stays on screen as if checked.
	g, _ = g.Update(staleMsg{why: "postmaster pid 4242 is gone"})
	g.SetSize(60, 6)
	golden(t, "guarantees_stale_60", g.View())
	if v := g.View(); strings.Contains(v, "✓") {
		t.Errorf("a stale pane still shows a ✓:\n%s", v)
	}
	g, _ = g.Update(oraclesMsg{fixtureOracles()})
	if v := g.View(); strings.Contains(v, "stale") {
		t.Errorf("fresh figures did not clear the stale mark:\n%s", v)
	}
}

func TestMetricsPaneGolden(t *testing.T) {
	m := newMetricsPane(testStyles())
	m, _ = m.Update(oraclesMsg{fixtureOracles()})
	m.SetSize(44, 7)
	golden(t, "metrics_44", m.View())
}

func TestBootPaneGolden(t *testing.T) {
	b := newBootPane(testStyles())
	b.SetSize(80, 10)
	b, _ = b.Update(bootProgressMsg{pgProgress(0, "")})
	b, _ = b.Update(bootProgressMsg{pgProgress(3, "")})
	golden(t, "boot_starting", b.View())
	b, _ = b.Update(bootDoneMsg{err: errString("no PostgreSQL binaries found: install postgresql or pass --pg-bin")})
	golden(t, "boot_error", b.View())
}

func TestPickerGolden(t *testing.T) {
	all, err := scenes.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	p := newPickerPane(testStyles(), all, nil, true)
	p.SetSize(100, 22)
	p.selectScene("crash-after-publish")
	golden(t, "picker_100", p.View())
}

func TestChooserGolden(t *testing.T) {
	c := newChooserPane(testStyles(), "crash", fixtureActors(), scenes.Settings{})
	golden(t, "chooser_actor", c.View())
	c, _ = c.Update(keyPress("down"))
	c, _ = c.Update(keyPress("enter"))
	golden(t, "chooser_checkpoint", c.View())
	c, _ = c.Update(keyPress("down"))
	c, _ = c.Update(keyPress("down"))
	_, cmd := c.Update(keyPress("enter"))
	got := cmd().(faultChosenMsg).steps
	if len(got) != 1 || got[0].String() != "crash relay-1 at relay.published" {
		t.Errorf("chosen %v, want crash relay-1 at relay.published", got)
	}

	// A crashed actor's dialog is about restarting it, a stalled one's about
	// resuming it; the restart speaks of worker ids for a relay only.
	for _, c := range []struct{ fault, actor, title, note, not string }{
		{"crash", "relay-2", "restart relay-2?", "worker id", "when?"},
		{"crash", "outbox/accounting", "restart outbox/accounting?", "new connection", "relay"},
		{"stall", "notifications", "resume notifications?", "resume", "when?"},
	} {
		ch := newChooserPane(testStyles(), c.fault, fixtureCompareActors(), scenes.Settings{})
		ch.actor = c.actor
		if c.fault == "crash" {
			ch.actorStates[c.actor] = sim.Crashed
		}
		ch.items = ch.whatItems()
		view := plain(ch.View())
		if !strings.Contains(view, c.title) || !strings.Contains(view, c.note) || strings.Contains(view, c.not) {
			t.Errorf("%s %s: want %q and %q, not %q:\n%s", c.fault, c.actor, c.title, c.note, c.not, view)
		}
	}

	// In compare mode an actor both pipelines run can be hit in one only,
	// and f asks which writer's COMMIT fails.
	c = newChooserPane(testStyles(), "crash", fixtureCompareActors(), scenes.Settings{})
	golden(t, "chooser_compare", c.View())
	keys, err := keyPath(scenes.Step{Cmd: "crash", Args: []string{"outbox/accounting"}}, fixtureCompareActors(), scenes.Settings{Mode: "compare"})
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 4 {
		t.Fatalf("keys %v: want c, the actor, the pipeline, now", keys)
	}
	c, _ = c.Update(keyPress(keys[1]))
	golden(t, "chooser_compare_pipeline", c.View())
	c, _ = c.Update(keyPress(keys[2]))
	_, cmd = c.Update(keyPress(keys[3]))
	if got := cmd().(faultChosenMsg).steps; len(got) != 1 || got[0].String() != "crash outbox/accounting" {
		t.Errorf("%v chose %v, want crash outbox/accounting", keys, got)
	}
	f := newChooserPane(testStyles(), "fail", fixtureCompareActors(), scenes.Settings{})
	f.naive = "publish-then-commit"
	_, cmd = f.Update(keyPress("1"))
	if got := cmd().(faultChosenMsg).steps; len(got) != 1 || got[0].String() != "fail-commit naive at naive.published" {
		t.Errorf("f then 1 chose %v, want only the naive writer's commit", got)
	}
	_, cmd = f.Update(keyPress("3"))
	if got := cmd().(faultChosenMsg).steps; len(got) != 2 {
		t.Errorf("f then 3 (both) chose %v", got)
	}
}

func TestMetricsPaneS24Golden(t *testing.T) {
	m := newMetricsPane(testStyles())
	m, _ = m.Update(oraclesMsg{fixtureOracles()})
	x := sim.Metrics{Pipeline: "outbox"}
	x.OutboxPendingTotal, x.OldestPendingAge = 1, 31*time.Second
	x.PublishesPerSecond, x.AttemptsPerMessage = 0.5, 2
	x.ExpiredLeasesRecovered, x.InboxDuplicatesIgnored = 1, 2
	x.OccurredToPublished = engine.LatencySummary{Count: 1, P50: 31 * time.Second, P99: 31 * time.Second}
	m, _ = m.Update(metricsMsg{[]sim.Metrics{x}})
	m.SetSize(50, 10)
	golden(t, "metrics_s24_50", m.View())
}

// At the right pane's width of a 120-column screen (45), a latency of a
// minute is drawn whole: its row's column gives way, not its p99.
func TestMetricsPaneLatencyWhole(t *testing.T) {
	m := newMetricsPane(testStyles())
	x := sim.Metrics{Pipeline: "outbox"}
	x.OccurredToPublished = engine.LatencySummary{Count: 2, P50: 62 * time.Second, P99: 62 * time.Second}
	x.PublishedToProcessed = engine.LatencySummary{Count: 2, P50: 31 * time.Second, P99: 31 * time.Second}
	m, _ = m.Update(metricsMsg{[]sim.Metrics{x}})
	for _, w := range []int{40, 45} {
		m.SetSize(w, 12)
		scr := plain(m.View())
		for _, want := range []string{`occurred → published\s+p50 1m2s p99 1m2s\n`, `published → processed\s+p50 31s p99 31s\n`} {
			if !regexp.MustCompile(want).MatchString(scr) {
				t.Errorf("width %d: lacks %s:\n%s", w, want, scr)
			}
		}
	}
}
