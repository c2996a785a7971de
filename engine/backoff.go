package engine

import (
	"math/rand/v2"
	"time"
)

// RetryDelay is the backoff before the next attempt after a failed one:
// min(2^min(attempts, 9), 300) seconds (S14). attempts counts claims, so the
// first failure waits 2 s.
func RetryDelay(attempts int) time.Duration {
	exp := min(max(attempts, 0), 9)
	return min(time.Duration(1<<exp)*time.Second, 300*time.Second)
}

// jittered adds up to a fifth of d, drawn from r, so relays that failed
// together do not retry together. The result is what is persisted in
// next_attempt_at: jitter is decided once, when the retry is scheduled.
func jittered(d time.Duration, r *rand.Rand) time.Duration {
	if r == nil || d <= 0 {
		return d
	}
	return d + time.Duration(r.Int64N(int64(d)/5+1))
}
