package pgtest

import "sync"

// A Pool keeps what a test built on the shared server (Server) and gave
// back, a simulation with its databases and a connection per actor say, for
// the package's next test to take instead of building its own: a new
// backend costs the server tens of milliseconds of CPU, and a suite that
// builds thousands spends minutes on them. Whatever is given back must be
// idle, holding nothing open or locked on the server, as another test may
// read the whole server's figures. Main closes what is left when the
// package's tests end, before the servers stop.
type Pool[T any] struct {
	mu    sync.Mutex
	idle  []T
	close func(T)
}

// NewPool returns a pool whose leftovers close closes (and drops what they
// made: on a $OUTBOXLAB_TEST_DATABASE_URL server nothing else would).
func NewPool[T any](close func(T)) *Pool[T] {
	p := &Pool[T]{close: close}
	poolsMu.Lock()
	pools = append(pools, p)
	poolsMu.Unlock()
	return p
}

// Take gives one the pool keeps, if it keeps one. It is the taker's until
// it gives it back (Give) or discards it (Discard).
func (p *Pool[T]) Take() (v T, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.idle); n > 0 {
		v, p.idle = p.idle[n-1], p.idle[:n-1]
		return v, true
	}
	return v, false
}

// Discard closes v, which is not to be kept (its run failed, say).
func (p *Pool[T]) Discard(v T) { p.close(v) }

// Give keeps v, idle, for the next test that takes one.
func (p *Pool[T]) Give(v T) {
	p.mu.Lock()
	p.idle = append(p.idle, v)
	p.mu.Unlock()
}

func (p *Pool[T]) closeAll() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, v := range idle {
		p.close(v)
	}
}

var (
	poolsMu sync.Mutex
	pools   []interface{ closeAll() }
)
