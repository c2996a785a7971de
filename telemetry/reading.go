package telemetry

import (
	"context"
	"sync"
	"time"
)

// Bounds of a scrape and of the reads behind it.
const (
	// ScrapeWait is how long a scrape waits for a read under way before it
	// answers with the last good one: Prometheus marks a target down when
	// it does not answer within its scrape timeout, and the figure that
	// says something is down (outboxlab_up 0, outboxlab_broker_up 0) is
	// then lost exactly when it matters.
	ScrapeWait = 40 * time.Millisecond
	// ReadTimeout bounds one read (its context).
	ReadTimeout = 3 * time.Second
	// ReadLate is how long a read may be under way before its source is
	// said down (outboxlab_up or outboxlab_broker_up 0) without waiting for
	// it to fail: a read takes milliseconds, and one that has not answered
	// in a second is a database waiting on a lock or a broker that does not
	// answer.
	ReadLate = time.Second
	// StatementTimeout is the statement_timeout of the reads on a
	// connection this package opens or configures: PostgreSQL itself ends a
	// read that waits on a lock, so the backend does not linger after the
	// context gives up (pgx closes its socket on a deadline, and a backend
	// waiting on a lock does not notice) and reads cannot pile up on the
	// server. Below ReadTimeout, so the server's error comes first.
	StatementTimeout = 2 * time.Second
)

// reading runs one read at a time, each on its own goroutine, and keeps
// the last good one: a scrape starts a read if none is under way, waits
// for it at most its own short deadline, and answers with what it has.
// A read that hangs (a table locked, a broker that does not answer) holds
// up no scrape, and while it hangs no other read starts, so they cannot
// pile up. Safe for concurrent use.
type reading[T any] struct {
	timeout time.Duration
	now     func() time.Time
	onError func(error)

	mu      sync.Mutex
	born    time.Time // the first scrape's: the age of figures never read
	good    T
	goodAt  time.Time // when the last good read began: what its figures are as of
	hasGood bool
	failed  error         // the last finished read's failure; nil after a success
	ended   bool          // a read has ended (well or not)
	running chan struct{} // closed when the read under way ends; nil when none
	since   time.Time     // when it began
}

// readState is what a scrape has of one source.
type readState[T any] struct {
	value T
	ok    bool          // value is a read's: one has succeeded
	age   time.Duration // since the good read began; since the first scrape without one
	// up: the last read that ended succeeded, and the one under way (if
	// any) is not late (ReadLate).
	up bool
}

func newReading[T any](timeout time.Duration, now func() time.Time, onError func(error)) *reading[T] {
	if onError == nil {
		onError = func(error) {}
	}
	return &reading[T]{timeout: timeout, now: now, onError: onError}
}

// get starts read unless a read is under way, waits for the read under
// way to end at most until wait after it began, and returns what is known
// then.
func (r *reading[T]) get(read func(context.Context) (T, error), wait time.Duration) readState[T] {
	r.mu.Lock()
	now := r.now()
	if r.born.IsZero() {
		r.born = now
	}
	if r.running == nil {
		done := make(chan struct{})
		r.running, r.since = done, now
		go r.run(read, now, done)
	}
	// A read is waited for only within wait of its start: one a scrape
	// before began and has not ended hangs, and waiting on it again would
	// make every scrape as slow as the wait. Until a first read has ended
	// there is nothing to serve: the first scrape waits up to ReadLate for
	// it, once (a read takes milliseconds; a slow one would otherwise leave
	// the first scrape, and a test's or a learner's single curl, with no
	// figures at all).
	if !r.ended {
		wait = max(wait, ReadLate)
	}
	done, left := r.running, r.since.Add(wait).Sub(now)
	r.mu.Unlock()
	if left > 0 {
		t := time.NewTimer(left)
		select {
		case <-done:
		case <-t.C:
		}
		t.Stop()
	}
	return r.state()
}

func (r *reading[T]) run(read func(context.Context) (T, error), began time.Time, done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
	v, err := read(ctx)
	cancel()
	if err != nil {
		r.onError(err) // before done: a scrape that waited for this read has heard why it failed
	}
	r.mu.Lock()
	if err == nil {
		r.good, r.goodAt, r.hasGood = v, began, true
	}
	r.failed, r.running, r.ended = err, nil, true
	close(done)
	r.mu.Unlock()
}

func (r *reading[T]) state() readState[T] {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	s := readState[T]{value: r.good, ok: r.hasGood, age: now.Sub(r.born)}
	if r.hasGood {
		s.age = now.Sub(r.goodAt)
	}
	late := r.running != nil && now.Sub(r.since) > min(ReadLate, r.timeout)
	s.up = r.hasGood && r.failed == nil && !late
	s.age = max(s.age, 0)
	return s
}
