package ui

// Minimum terminal size; below it the TUI says so instead of drawing.
const (
	minWidth  = 80
	minHeight = 24
)

// minBodyUnderHelp is the fewest rows the panes keep above the full help;
// a taller help is drawn over the foot of the body instead.
const minBodyUnderHelp = 10
