package lesson

import (
	"slices"
	"sync"
)

// memo keeps lines worked out from a key, for work the screen would
// otherwise redo on every action or resize (the columns a step names, the
// lesson's rendered Markdown). Bounded: full, it starts again. Safe for the
// workshop's many models in one process; the lines it returns are the
// caller's to change.
type memo[K comparable] struct {
	mu      sync.Mutex
	size    int
	entries map[K][]string
}

func newMemo[K comparable](size int) *memo[K] {
	return &memo[K]{size: size, entries: map[K][]string{}}
}

// lines returns work's lines for k, doing the work on a miss. A nil memo
// does the work every time.
func (m *memo[K]) lines(k K, work func() []string) []string {
	if m == nil {
		return work()
	}
	m.mu.Lock()
	out, ok := m.entries[k]
	m.mu.Unlock()
	if !ok {
		out = work()
		m.mu.Lock()
		if len(m.entries) >= m.size {
			clear(m.entries)
		}
		m.entries[k] = out
		m.mu.Unlock()
	}
	return slices.Clone(out)
}
