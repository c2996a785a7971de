package story

import (
	"testing"

	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/sim/simtest"
)

// ordering-lanes, variant park (S20): the capture that reached the consumers
// before its payment's event is parked by each of them — an arrow to
// PostgreSQL, a COMMIT and an ACK, no ROLLBACK and no NACK — and the
// outcome says it was applied with the version it waited for.
func TestParkedStory(t *testing.T) {
	all, err := scenes.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenes.Find(all, "ordering-lanes")
	if err != nil {
		t.Fatal(err)
	}
	res, err := simtest.Run(t, sc, sim.RunOptions{Variant: "park"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Build(res.Timeline, "", "4")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"accounting", "notifications"} {
		if n := steps(s, Parked, c, PostgreSQL); n != 1 {
			t.Errorf("%s parks %d times, want 1: %+v", c, n, s.Events)
		}
		if n := steps(s, Nack, c, ""); n != 0 {
			t.Errorf("%s NACKs a parked event %d times", c, n)
		}
	}
	for _, tl := range s.Consumers {
		if tl.Parked != 1 || tl.Refused != 0 {
			t.Errorf("%s: parked %d, refused %d, want 1 and 0", tl.Consumer, tl.Parked, tl.Refused)
		}
	}
}
