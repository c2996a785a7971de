package ui

import (
	"slices"
	"sync"

	glamouransi "charm.land/glamour/v2/ansi"
)

// markdownCache keeps the lesson pane's rendered Markdown by text, width and
// style. A glamour renderer is built and run for every render (the pane
// renders again whenever its width changes, and the lesson's quotes and
// footer render their own): a profile of ui's tests, which play every
// lesson by keys, put a sixth of the test process's CPU there, most of it
// the same text at the same width.
// Shared by the copies of one pane (Bubble Tea passes models by value),
// safe for the workshop's many models in one process.
type markdownCache struct {
	mu      sync.Mutex
	entries map[markdownKey][]string
}

type markdownKey struct {
	style *glamouransi.StyleConfig
	width int
	md    string
}

// markdownCacheSize bounds the cache: a lesson step's texts at the widths a
// terminal is dragged through; when full it starts again.
const markdownCacheSize = 256

func newMarkdownCache() *markdownCache {
	return &markdownCache{entries: map[markdownKey][]string{}}
}

// lines returns render's lines for the key, rendering on a miss. A nil
// cache renders every time. The lines returned are the caller's to change.
func (c *markdownCache) lines(k markdownKey, render func() []string) []string {
	if c == nil {
		return render()
	}
	c.mu.Lock()
	out, ok := c.entries[k]
	c.mu.Unlock()
	if ok {
		return slices.Clone(out)
	}
	out = render()
	c.mu.Lock()
	if len(c.entries) >= markdownCacheSize {
		clear(c.entries)
	}
	c.entries[k] = out
	c.mu.Unlock()
	return slices.Clone(out)
}
