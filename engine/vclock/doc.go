// Package vclock is the one clock whose time a program moves: the
// simulator's virtual clock (a fixed start, a microsecond at every read),
// the engine's tests' (a fixed start, still until moved) and the
// deployment's tests' (the wall clock plus a skew the test moves). Each is
// an engine.Clock; it imports nothing of the engine, so the engine's own
// tests can use it.
package vclock
