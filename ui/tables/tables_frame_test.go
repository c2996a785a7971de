package tables

import (
	"fmt"
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

// A table too wide for its pane leaves columns out of what it draws, never
// out of the rows it holds: the second frame at the same size is the first.
func TestTablesDrawTheSameFrameTwice(t *testing.T) {
	p := Pane{st: panetest.Styles()}
	p.table = 1
	p.w, p.h = 69, 8
	p.named = []string{"att", "next attempt"}
	p.data = sim.Table{Name: "outbox_messages", Columns: []string{"id", "seq", "aggregate", "ver", "att", "lock", "lease until", "next attempt", "published", "dead", "last error"},
		Rows: [][]string{{"019b796d-d600-7e54-83a4-1234deb1bbf2", "1", "019b796d-d600-7e54-83a4-1234deb1bbf3", "1", "1", "-", "-", "12:00:02.324", "-", "-", "publish deb1bbf2: broker is down"}}}
	first := panetest.Plain(p.View())
	for i := range 3 {
		if again := panetest.Plain(p.View()); again != first {
			t.Fatalf("frame %d differs from the first:\n%s\nthe first:\n%s", i+2, again, first)
		}
	}
}

// A last error wider than its column wraps inside it when the rows still
// fit the pane so: read whole, never cut at the column's edge ("refused the
// message: pay…"); with more rows than that, each keeps one line.
func TestTablesWrapALongTextWhenItFits(t *testing.T) {
	long := "dead letter: broker refused the message: payload fails the topic's schema (amount must be a positive integer)"
	p := Pane{st: panetest.Styles()}
	p.table = 1
	p.w, p.h = 69, 8
	p.named = []string{"last error"} // as the poison lesson's step names it
	row := func(id string) []string {
		return []string{"019b796d-d600-7e54-83a4-1234" + id, "1", "019b796d-d600-7e54-83a4-1234deb1bbf3", "1", "5", "-", "-", "12:00:02", "-", "12:00:40", long}
	}
	p.data = sim.Table{Name: "outbox_messages", Columns: []string{"id", "seq", "aggregate", "ver", "att", "lock", "lease until", "next attempt", "published", "dead", "last error"},
		Rows: [][]string{row("deb1bbf2")}, Total: 1}
	view := panetest.Plain(p.View())
	if words := strings.Join(strings.Fields(view), " "); !strings.Contains(words, long) || strings.Contains(view, "…\n") {
		t.Errorf("one row: its last error is not read whole:\n%s", view)
	}
	for i := range 5 {
		p.data.Rows = append(p.data.Rows, row(fmt.Sprintf("deb1bbf%d", i)))
	}
	p.data.Total = len(p.data.Rows)
	if lines := strings.Split(strings.TrimRight(panetest.Plain(p.View()), " \n"), "\n"); len(lines) > p.h {
		t.Errorf("six rows: %d lines in a pane of %d", len(lines), p.h)
	}
}
