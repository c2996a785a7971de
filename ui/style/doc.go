// Package style is the terminal screens' look: every style the simulator's
// TUI (package ui) and the deployment's screen (package deployui) draw
// with, for a dark or a light background or none (NO_COLOR), and the
// drawing helpers their panes share (layout.go: fitting a styled line to a
// width, blocks, columns, a pane's title line). It imports no screen, so the
// deployment's screen shares the simulator's look without linking the
// simulator.
package style
