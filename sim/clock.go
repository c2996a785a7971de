package sim

import (
	"time"

	"github.com/outboxlab/outboxlab/engine/vclock"
)

// Epoch is where every scene's virtual clock starts, so timelines of the
// same scene and seed are identical to the microsecond.
var Epoch = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// newClock returns the virtual clock the engine reads through
// engine.Clock, at start (Config.Start): time moves only when the
// simulator advances it, so a 30 s lease or a 300 s backoff takes one
// keystroke. Each read moves it by one microsecond, so events keep a
// strict order (occurred_at, leases) as they would on a real clock.
func newClock(start time.Time) *vclock.Clock { return vclock.Ticking(start, time.Microsecond) }
