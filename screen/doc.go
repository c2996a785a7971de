// Package screen is what every terminal screen of outboxlab shares: the
// simulator's (package ui, which the workshop runs one per learner), the
// workshop instructor's (package workshop) and the deployment's (package
// deployui). It holds their look, every style they draw with, for a dark
// or a light background or none (NO_COLOR) (styles.go); the drawing
// helpers their panes share (layout.go: fitting a styled line to a width,
// blocks, columns, a pane's title line); and the keys every screen has,
// quitting and help (keys.go). Quitting on a terminal's signals is
// screen/quit's. It imports no screen, so the deployment's screen shares
// the simulator's look without linking the simulator.
package screen
