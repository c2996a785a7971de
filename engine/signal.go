package engine

import "sync"

// Signal is a broker's "something changed" for wait loops: Watch hands out
// a channel that Notify closes, then replaces. A channel nobody was given
// cannot have waiters, so Notify does nothing until one is: most notifies
// (each ack of a batch) cost no allocation. The zero value is ready.
type Signal struct {
	mu      sync.Mutex
	ch      chan struct{}
	watched bool
}

// Watch returns the channel the next Notify closes.
func (s *Signal) Watch() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	s.watched = true
	return s.ch
}

// Notify wakes whoever waits on a channel Watch returned.
func (s *Signal) Notify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watched {
		close(s.ch)
		s.ch = make(chan struct{})
		s.watched = false
	}
}
