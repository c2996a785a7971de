package tables

import (
	"testing"

	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

func TestMain(m *testing.M) { panetest.Main(m) }

func TestTablesPaneGolden(t *testing.T) {
	p := New(panetest.Styles())
	p.Reset(nil, 1, []string{"outbox"})
	p.table = 1
	p.SetSize(100, 6)
	p, _ = p.Update(ReadMsg{SimID: 1, Gen: 1, Pipeline: "outbox", Table: sim.Table{Name: "outbox_messages", Columns: panetest.Table().Columns, Rows: panetest.Table().Rows[:1], Keys: []string{"k1"}, Total: 1}})
	p, _ = p.Update(ReadMsg{SimID: 1, Gen: 2, Pipeline: "outbox", Table: panetest.Table()})
	if !p.changed["k2"] || p.changed["k1"] {
		t.Errorf("changed = %v, want only k2 (the row the last step added)", p.changed)
	}
	panetest.Golden(t, "tables_outbox_100", p.View())
	p.focused = true
	p.SetSize(60, 5)
	panetest.Golden(t, "tables_outbox_60_focused", p.View())
}
