package ui

import (
	"testing"

	"github.com/outboxlab/outboxlab/sim"
)

// A table too wide for its pane leaves columns out of what it draws, never
// out of the rows it holds: the second frame at the same size is the first.
func TestTablesDrawTheSameFrameTwice(t *testing.T) {
	p := tablesPane{st: testStyles()}
	p.table = 1
	p.w, p.h = 69, 8
	p.named = []string{"att", "next attempt"}
	p.data = sim.Table{Name: "outbox_messages", Columns: []string{"id", "seq", "aggregate", "ver", "att", "lock", "lease until", "next attempt", "published", "dead", "last error"},
		Rows: [][]string{{"019b796d-d600-7e54-83a4-1234deb1bbf2", "1", "019b796d-d600-7e54-83a4-1234deb1bbf3", "1", "1", "-", "-", "12:00:02.324", "-", "-", "publish deb1bbf2: broker is down"}}}
	first := plain(p.View())
	for i := range 3 {
		if again := plain(p.View()); again != first {
			t.Fatalf("frame %d differs from the first:\n%s\nthe first:\n%s", i+2, again, first)
		}
	}
}
