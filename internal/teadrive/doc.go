// Package teadrive plays the Bubble Tea runtime for a screen's tests: each
// command on its own goroutine, each message back to Update one at a time,
// every screen drawn kept, keys pressed as a terminal sends them. It
// imports nothing of the module, so a screen's tests that must not link the
// simulator (deployui's) can use it.
package teadrive
