package ui

import (
	"fmt"
	"os"
	"runtime"

	"github.com/charmbracelet/x/term"
	"github.com/outboxlab/outboxlab/badinput"
)

// needTerminal says, as bad input, that the simulator and the course have
// no terminal to read keys from: stdin is not one and there is no
// controlling terminal to open instead (bubbletea would open /dev/tty, and
// fail with its own words after PostgreSQL booted). play needs none.
func needTerminal() error {
	if term.IsTerminal(os.Stdin.Fd()) || runtime.GOOS == "windows" {
		return nil
	}
	f, err := os.Open("/dev/tty")
	if err == nil {
		return f.Close()
	}
	return badinput.New(fmt.Sprintf("no terminal to read keys from (%v): run outboxlab in one; "+
		"`outboxlab run SCENE` and `outboxlab play LESSON` need none", err))
}
