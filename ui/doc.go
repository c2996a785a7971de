// Package ui is outboxlab's terminal simulator: a Bubble Tea program that
// boots PostgreSQL, runs a scene's pipelines on it and lets the learner step,
// pause and break them while the tables, the timeline and the oracle's
// guarantees update on screen.
package ui
