package engine

import "time"

// Clock is the engine's only source of time; SQL never reads now().
type Clock interface {
	Now() time.Time
}

// SystemClock is the real clock, in UTC, with microseconds (what timestamptz keeps),
// so a time read back from PostgreSQL equals the one written.
type SystemClock struct{}

// Now returns the current wall time truncated to microseconds.
func (SystemClock) Now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

func clockOrSystem(c Clock) Clock {
	if c == nil {
		return SystemClock{}
	}
	return c
}
