package guarantees

import (
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/ui/panetest"
)

func TestMain(m *testing.M) { panetest.Main(m) }

func TestGuaranteesPaneGolden(t *testing.T) {
	g := New(panetest.Styles())
	g, _ = g.Update(OraclesMsg{panetest.Oracles()})
	g.SetSize(100, 10)
	panetest.Golden(t, "guarantees_compare_100", g.View())
	panetest.GoldenANSI(t, "guarantees_compare_100", g.View())
	g.SetSize(80, 5)
	panetest.Golden(t, "guarantees_compact_80", g.CompactView())

	g, _ = g.Update(OraclesMsg{panetest.BadOracle()})
	g.SetSize(44, 10)
	panetest.Golden(t, "guarantees_violations_44", g.View())
	panetest.GoldenANSI(t, "guarantees_violations_44", g.View())

	// PostgreSQL stopped: no figure stays on screen as if checked.
	g, _ = g.Update(StaleMsg{Why: "postmaster pid 4242 is gone"})
	g.SetSize(60, 6)
	panetest.Golden(t, "guarantees_stale_60", g.View())
	if v := g.View(); strings.Contains(v, "✓") {
		t.Errorf("a stale pane still shows a ✓:\n%s", v)
	}
	g, _ = g.Update(OraclesMsg{panetest.Oracles()})
	if v := g.View(); strings.Contains(v, "stale") {
		t.Errorf("fresh figures did not clear the stale mark:\n%s", v)
	}
}
