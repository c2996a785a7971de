package screen

import (
	"charm.land/bubbles/v2/key"
	"github.com/outboxlab/outboxlab/catalog"
)

// QuitKey is how every screen is left: q, or ctrl+c where the terminal
// sends it as a key (the program runs without bubbletea's signal handler:
// quit.OnSignal).
func QuitKey(w *catalog.Printer) key.Binding {
	return key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", w.T("quit")))
}

// HelpKey is the key that opens a screen's help, ?; what the help holds is
// the screen's to say (the simulator's: more keys; the deployment's: its
// keys and psql).
func HelpKey(what string) key.Binding {
	return key.NewBinding(key.WithKeys("?"), key.WithHelp("?", what))
}

// ScrollKeys are the keys that scroll a pane's text or rows, bound alike in
// every pane that scrolls: ↑/k and ↓/j a line, pgup and pgdn a page.
type ScrollKeys struct {
	Up, Down, PageUp, PageDown key.Binding
}

// NewScrollKeys are ScrollKeys, their help in w's language.
func NewScrollKeys(w *catalog.Printer) ScrollKeys {
	return ScrollKeys{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", w.T("scroll up"))),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", w.T("scroll down"))),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", w.T("page up"))),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", w.T("page down"))),
	}
}
