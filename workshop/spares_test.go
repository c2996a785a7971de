package workshop

import (
	"slices"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/lessons"
)

// A room with two seats made ahead keeps four spare databases; ana joins
// on two of them (owned by her role, her simulator running on them), and
// the room keeps two while she is in (one seat free); bea, the room
// full of what it prepared, joins on databases cloned for her. When both
// have left, the room makes the spares back; a room started again on the
// same data directory finds them and makes none.
func TestLearnersJoinOnSpareDatabases(t *testing.T) {
	cfg := Config{MaxLearners: 2, SpareSeats: 2}
	r, stop := startRoomStop(t, cfg)
	waitSpares(t, r)
	spares := func() []string {
		r.spares.mu.Lock()
		defer r.spares.mu.Unlock()
		return slices.Sorted(slices.Values(r.spares.names))
	}
	before := spares()
	t.Logf("spares %v", before)
	if len(before) != 4 || count(t, r, "postgres", `SELECT count(*) FROM pg_database WHERE starts_with(datname, $1)`, sparePrefix) != 4 {
		t.Fatalf("spares made ahead = %v, want 4 (and 4 on the server)", before)
	}

	ana := connect(t, r, "ana", 80, 24, nil)
	waitLearner(t, r, "ana", "running", func(v LearnerView) bool { return v.Ready && v.Place == lessons.PlaceStep })
	for _, db := range []string{"ws_ana_outbox", "ws_ana_naive"} {
		if n := count(t, r, "postgres", `SELECT count(*) FROM pg_database WHERE datname = $1 AND pg_get_userbyid(datdba) = 'ws_ana'`, db); n != 1 {
			t.Errorf("%s owned by ws_ana: %d, want 1", db, n)
		}
	}
	if left := spares(); len(left) != 2 || !slices.Contains(before, left[0]) || !slices.Contains(before, left[1]) {
		t.Errorf("spares with ana in = %v, want two of %v (and none made: one seat is free)", left, before)
	}
	bea := connect(t, r, "bea", 80, 24, nil)
	waitLearner(t, r, "bea", "running", func(v LearnerView) bool { return v.Ready && v.Place == lessons.PlaceStep })

	ana.keys("q")
	bea.keys("q")
	waitGone(t, r, "ana")
	waitGone(t, r, "bea")
	testrun.Eventually(t, 30*time.Second, "the spares made back", func() bool { return len(spares()) == 4 })
	after := spares()
	stop()

	cfg.PG.DataDir = r.cfg.PG.DataDir
	r, _ = startRoomStop(t, cfg)
	if got := spares(); !slices.Equal(got, after) {
		t.Errorf("spares the room found at its restart = %v, want the %v it left", got, after)
	}
}

// waitSpares waits until the room has all the spares it wants (a class,
// or a benchmark's, arrives once the room is ready for it).
func waitSpares(tb testing.TB, r *Room) {
	tb.Helper()
	testrun.Eventually(tb, time.Minute, "the room's spare databases made", func() bool {
		r.spares.mu.Lock()
		have := len(r.spares.names)
		r.spares.mu.Unlock()
		return have >= r.spareWant()
	})
}
