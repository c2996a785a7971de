package ui

import "github.com/outboxlab/outboxlab/screen"

// Styles is every style the TUI draws with, grouped by pane (package
// screen's, which the deployment's screen shares).
type Styles = screen.Styles

// DefaultStyles returns the styles for a dark or a light background, or
// none under NO_COLOR (screen.Default).
func DefaultStyles(hasDark bool) Styles { return screen.Default(hasDark) }
