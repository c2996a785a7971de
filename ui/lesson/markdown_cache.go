package lesson

import glamouransi "charm.land/glamour/v2/ansi"

// markdownKey is what the lesson pane's rendered Markdown depends on. A
// glamour renderer is built and run for every render (the pane renders
// again whenever its width changes, and the lesson's quotes and footer
// render their own): a profile of ui's tests, which play every lesson by
// keys, put a sixth of the test process's CPU there, most of it the same
// text at the same width. Each pane keeps a memo of them (Pane.rendered),
// shared by its copies (Bubble Tea passes models by value).
type markdownKey struct {
	style *glamouransi.StyleConfig
	width int
	md    string
}

// markdownMemoSize bounds a pane's memo: a lesson step's texts at the
// widths a terminal is dragged through.
const markdownMemoSize = 256
