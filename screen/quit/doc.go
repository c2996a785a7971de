// Package quit ends a bubbletea program on the signals a terminal sends, for
// every screen (the simulator's and the deployment's), so that a signal
// quits through the screen's own cleanup.
package quit
