// Package ui is outboxlab's terminal simulator: a Bubble Tea program that
// boots PostgreSQL, runs a scene's pipelines on it and lets the learner step,
// pause and break them while the tables, the timeline and the oracle's
// guarantees update on screen.
//
// This package is the root: it owns the window, the run (runState: the
// queue of actions, autoplay, the notice), the pages and the overlays, and
// routes every message. Panes that draw the
// simulation and need nothing of the root live in packages of their own,
// each one Pane with Update, View, SetSize and its help: ui/pipeline,
// ui/tables, ui/timeline, ui/guarantees, ui/metrics, ui/lesson and the
// boot screen, ui/boot; so do the overlays opened over them
// (ui/overlay/...: the picker, the fault dialog, a message's story, a
// chaos run). What they draw with is package screen's, shared with the
// deployment's screen; what their tests share is ui/panetest's. Recording
// the screen (--record) is ui/cast's.
package ui
