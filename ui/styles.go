package ui

import "github.com/outboxlab/outboxlab/ui/style"

// Styles is every style the TUI draws with, grouped by pane (package
// style, which the deployment's screen shares).
type Styles = style.Styles

// DefaultStyles returns the styles for a dark or a light background, or
// none under NO_COLOR (style.Default).
func DefaultStyles(hasDark bool) Styles { return style.Default(hasDark) }
