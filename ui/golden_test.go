package ui

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

// TestMain runs the tests with colours whatever the shell says: the goldens
// are drawn as a colour terminal draws them (a test of NO_COLOR sets it).
func TestMain(m *testing.M) {
	os.Unsetenv("NO_COLOR")
	// A lesson played by keys waits for each key's quiet moment more than
	// it computes, so the package's tests all start at once whatever the
	// cores: its longest test, TestEveryLessonByKeysAlone, does not wait
	// for a slot behind the others.
	testrun.WaitMostly(8)
	pgtest.Main(m)
}

func TestPipelinePaneGolden(t *testing.T) {
	for _, tc := range []struct {
		name   string
		w, h   int
		actors []sim.ActorView
	}{
		{"pipeline_outbox_120", 120, 9, panetest.Actors()},
		{"pipeline_outbox_80", 80, 5, panetest.Actors()},
		{"pipeline_compare_120", 120, 13, panetest.CompareActors()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPipelinePane(panetest.Styles())
			p, _ = p.Update(actorsMsg{tc.actors})
			p, _ = p.Update(oraclesMsg{panetest.Oracles()})
			p, _ = p.Update(edgesMsg{[]sim.Edge{
				{Pipeline: "outbox", From: "postgres", To: "relay", Queued: 2, Unacked: 1},
				{Pipeline: "outbox", From: "broker", To: "accounting", Queued: 1, Unacked: 1},
				{Pipeline: "outbox", From: "broker", To: "notifications"},
			}})
			p.SetSize(tc.w, tc.h)
			panetest.Golden(t, tc.name, p.View())
		})
	}
}

func TestGuaranteesPaneGolden(t *testing.T) {
	g := newGuaranteesPane(panetest.Styles())
	g, _ = g.Update(oraclesMsg{panetest.Oracles()})
	g.SetSize(100, 10)
	panetest.Golden(t, "guarantees_compare_100", g.View())
	panetest.GoldenANSI(t, "guarantees_compare_100", g.View())
	g.SetSize(80, 5)
	panetest.Golden(t, "guarantees_compact_80", g.compactView())

	g, _ = g.Update(oraclesMsg{panetest.BadOracle()})
	g.SetSize(44, 10)
	panetest.Golden(t, "guarantees_violations_44", g.View())
	panetest.GoldenANSI(t, "guarantees_violations_44", g.View())

	// PostgreSQL stopped: no figure stays on screen as if checked.
	g, _ = g.Update(staleMsg{why: "postmaster pid 4242 is gone"})
	g.SetSize(60, 6)
	panetest.Golden(t, "guarantees_stale_60", g.View())
	if v := g.View(); strings.Contains(v, "✓") {
		t.Errorf("a stale pane still shows a ✓:\n%s", v)
	}
	g, _ = g.Update(oraclesMsg{panetest.Oracles()})
	if v := g.View(); strings.Contains(v, "stale") {
		t.Errorf("fresh figures did not clear the stale mark:\n%s", v)
	}
}

func TestMetricsPaneGolden(t *testing.T) {
	m := newMetricsPane(panetest.Styles())
	m, _ = m.Update(oraclesMsg{panetest.Oracles()})
	m.SetSize(44, 7)
	panetest.Golden(t, "metrics_44", m.View())
}

func TestBootPaneGolden(t *testing.T) {
	b := newBootPane(panetest.Styles())
	b.SetSize(80, 10)
	b, _ = b.Update(bootProgressMsg{pgProgress(0, "")})
	b, _ = b.Update(bootProgressMsg{pgProgress(3, "")})
	panetest.Golden(t, "boot_starting", b.View())
	b, _ = b.Update(bootDoneMsg{err: errString("no PostgreSQL binaries found: install postgresql or pass --pg-bin")})
	panetest.Golden(t, "boot_error", b.View())
}

// The picker's golden draws five of the built-in scenes, by name: a scene
// added to the project changes no golden. That it lists every scene, and
// says how many, is held apart.
func TestPickerGolden(t *testing.T) {
	all, err := scenes.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var some []*scenes.Scene
	for _, sc := range all {
		if slices.Contains([]string{"dual-write-crash", "dual-write-phantom", "crash-after-publish", "crash-before-ack", "broker-down"}, sc.Name) {
			some = append(some, sc)
		}
	}
	if len(some) != 5 {
		t.Fatalf("%d of the golden's five scenes are built in", len(some))
	}
	p := newPickerPane(panetest.Styles(), some, nil, true)
	p.SetSize(100, 22)
	p.selectScene("crash-after-publish")
	panetest.Golden(t, "picker_100", p.View())

	every := newPickerPane(panetest.Styles(), all, nil, true)
	if n := len(every.list.Items()); n != len(all) {
		t.Errorf("the picker lists %d items for the %d built-in scenes", n, len(all))
	}
	if title := every.list.Title; !strings.HasSuffix(title, fmt.Sprintf(" · %d", len(all))) {
		t.Errorf("the picker's title %q does not count the %d scenes", title, len(all))
	}
}

func TestChooserGolden(t *testing.T) {
	c := newChooserPane(panetest.Styles(), "crash", panetest.Actors(), scenes.Settings{})
	panetest.Golden(t, "chooser_actor", c.View())
	c, _ = c.Update(panetest.KeyPress("down"))
	c, _ = c.Update(panetest.KeyPress("enter"))
	panetest.Golden(t, "chooser_checkpoint", c.View())
	c, _ = c.Update(panetest.KeyPress("down"))
	c, _ = c.Update(panetest.KeyPress("down"))
	_, cmd := c.Update(panetest.KeyPress("enter"))
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
		ch := newChooserPane(panetest.Styles(), c.fault, panetest.CompareActors(), scenes.Settings{})
		ch.actor = c.actor
		if c.fault == "crash" {
			ch.actorStates[c.actor] = sim.Crashed
		}
		ch.items = ch.whatItems()
		view := panetest.Plain(ch.View())
		if !strings.Contains(view, c.title) || !strings.Contains(view, c.note) || strings.Contains(view, c.not) {
			t.Errorf("%s %s: want %q and %q, not %q:\n%s", c.fault, c.actor, c.title, c.note, c.not, view)
		}
	}

	// In compare mode an actor both pipelines run can be hit in one only,
	// and f asks which writer's COMMIT fails.
	c = newChooserPane(panetest.Styles(), "crash", panetest.CompareActors(), scenes.Settings{})
	panetest.Golden(t, "chooser_compare", c.View())
	keys, err := keyPath(scenes.Step{Cmd: "crash", Args: []string{"outbox/accounting"}}, panetest.CompareActors(), scenes.Settings{Mode: "compare"})
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 4 {
		t.Fatalf("keys %v: want c, the actor, the pipeline, now", keys)
	}
	c, _ = c.Update(panetest.KeyPress(keys[1]))
	panetest.Golden(t, "chooser_compare_pipeline", c.View())
	c, _ = c.Update(panetest.KeyPress(keys[2]))
	_, cmd = c.Update(panetest.KeyPress(keys[3]))
	if got := cmd().(faultChosenMsg).steps; len(got) != 1 || got[0].String() != "crash outbox/accounting" {
		t.Errorf("%v chose %v, want crash outbox/accounting", keys, got)
	}
	f := newChooserPane(panetest.Styles(), "fail", panetest.CompareActors(), scenes.Settings{})
	f.naive = "publish-then-commit"
	_, cmd = f.Update(panetest.KeyPress("1"))
	if got := cmd().(faultChosenMsg).steps; len(got) != 1 || got[0].String() != "fail-commit naive at naive.published" {
		t.Errorf("f then 1 chose %v, want only the naive writer's commit", got)
	}
	_, cmd = f.Update(panetest.KeyPress("3"))
	if got := cmd().(faultChosenMsg).steps; len(got) != 2 {
		t.Errorf("f then 3 (both) chose %v", got)
	}
}

func TestMetricsPaneS24Golden(t *testing.T) {
	m := newMetricsPane(panetest.Styles())
	m, _ = m.Update(oraclesMsg{panetest.Oracles()})
	x := sim.Metrics{Pipeline: "outbox"}
	x.OutboxPendingTotal, x.OldestPendingAge = 1, 31*time.Second
	x.PublishesPerSecond, x.AttemptsPerMessage = 0.5, 2
	x.ExpiredLeasesRecovered, x.InboxDuplicatesIgnored = 1, 2
	x.OccurredToPublished = engine.LatencySummary{Count: 1, P50: 31 * time.Second, P99: 31 * time.Second}
	m, _ = m.Update(metricsMsg{[]sim.Metrics{x}})
	m.SetSize(50, 10)
	panetest.Golden(t, "metrics_s24_50", m.View())
}

// At the right pane's width of a 120-column screen (45), a latency of a
// minute is drawn whole: its row's column gives way, not its p99.
func TestMetricsPaneLatencyWhole(t *testing.T) {
	m := newMetricsPane(panetest.Styles())
	x := sim.Metrics{Pipeline: "outbox"}
	x.OccurredToPublished = engine.LatencySummary{Count: 2, P50: 62 * time.Second, P99: 62 * time.Second}
	x.PublishedToProcessed = engine.LatencySummary{Count: 2, P50: 31 * time.Second, P99: 31 * time.Second}
	m, _ = m.Update(metricsMsg{[]sim.Metrics{x}})
	for _, w := range []int{40, 45} {
		m.SetSize(w, 12)
		scr := panetest.Plain(m.View())
		for _, want := range []string{`occurred → published\s+p50 1m2s p99 1m2s\n`, `published → processed\s+p50 31s p99 31s\n`} {
			if !regexp.MustCompile(want).MatchString(scr) {
				t.Errorf("width %d: lacks %s:\n%s", w, want, scr)
			}
		}
	}
}
