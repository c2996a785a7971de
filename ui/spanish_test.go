package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/sim"
)

// Under --lang es the screen's own words are Spanish: the status line, the
// help, the dialogs, the pane titles and figures, the notices. The test draws
// each in Spanish and fails on any English text the catalog translates.
func TestTheScreenSpeaksSpanish(t *testing.T) {
	var views []string
	m := fixtureModelIn(t, 160, 50, "compare", 3, "es")
	views = append(views, m.render())
	m.help.ShowAll = true
	views = append(views, m.helpView())
	m.help.ShowAll = false
	for _, fault := range []string{"crash", "stall", "move", "advance", "fail"} {
		c := newChooserPane(m.st, fault, fixtureCompareActors())
		views = append(views, c.View())
		if fault != "advance" && fault != "fail" {
			c, _ = c.Update(keyPress("2")) // accounting: which pipeline's?
			views = append(views, c.View())
			c, _ = c.Update(keyPress("3"))
			views = append(views, c.View())
		}
	}
	for _, st := range []sim.ActorState{sim.Crashed, sim.Stalled} {
		mm := m
		mm.setActors(with(fixtureActors(), "relay-1", st))
		mm.notice = mm.stuckNotice()
		views = append(views, mm.statusView(160))
	}
	mm := m
	mm.setActors(idle(fixtureActors()))
	mm.notice = mm.stuckNotice()
	views = append(views, mm.statusView(160))
	g := newGuaranteesPane(m.st)
	g, _ = g.Update(staleMsg{why: "postmaster pid 7 is gone"})
	g.SetSize(80, 6)
	views = append(views, g.View())
	tl := newTimelinePane(m.st)
	tl.SetSize(100, 4)
	views = append(views, tl.View())

	screen := plain(strings.Join(views, "\n"))
	// Table and column names are SQL identifiers: they stay as the schema
	// writes them in every language.
	identifiers := append(append([]string{}, sim.TableNames...), fixtureTable().Columns...)
	for _, tr := range catalog.Translated() {
		en, es := tr[0], tr[1]
		// Short words (time, run) occur inside others; check what can be told apart.
		if len(en) < 8 || strings.Contains(es, en) {
			continue
		}
		probe := strings.TrimSpace(strings.SplitN(en, "%", 2)[0])
		if len(probe) < 8 || slices.Contains(identifiers, probe) {
			continue
		}
		if strings.Contains(screen, probe) {
			t.Errorf("the Spanish screen shows the English %q (Spanish: %q)", probe, es)
		}
	}
	for _, want := range []string{"escena", "Garantías", "Cronología", "nada avanza", "¿qué actor?", "de qué pipeline?", "eventos perdidos"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the Spanish screen lacks %q", want)
		}
	}
}
