package ui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/pg"
)

type errString string

func (e errString) Error() string { return string(e) }

func pgProgress(step int, detail string) pg.Progress {
	return pg.Progress{Step: pg.BootStep(step), Detail: detail}
}

// keyPress builds the message a terminal sends for a key, as named by
// key.Binding (e.g. "up", "enter", "space", "c").
func keyPress(k string) tea.KeyPressMsg {
	switch k {
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}
