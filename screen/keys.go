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
