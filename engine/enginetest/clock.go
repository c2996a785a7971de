package enginetest

import (
	"time"

	"github.com/outboxlab/outboxlab/engine/vclock"
)

// Start is where a test clock starts: a fixed moment, so timelines and
// stored times are the same on every run.
var Start = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

// NewClock returns the tests' clock (an engine.Clock): at Start, still
// until a test moves it.
func NewClock() *vclock.Clock { return vclock.At(Start) }
