package ui

import (
	"os"
	"testing"

	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

// TestMain runs the tests with colours whatever the shell says: the goldens
// are drawn as a colour terminal draws them (a test of NO_COLOR sets it).
func TestMain(m *testing.M) {
	os.Unsetenv("NO_COLOR")
	// A lesson played by keys waits for each key's quiet moment more than
	// it computes, so the package's tests all start at once whatever the
	// cores: its longest test, TestEveryLessonByKeysAlone, does not wait
	// for a slot behind the others.
	testrun.WaitMostly(8)
	pgtest.Main(m)
}

func TestBootPaneGolden(t *testing.T) {
	b := newBootPane(panetest.Styles())
	b.SetSize(80, 10)
	b, _ = b.Update(bootProgressMsg{pgProgress(0, "")})
	b, _ = b.Update(bootProgressMsg{pgProgress(3, "")})
	panetest.Golden(t, "boot_starting", b.View())
	b, _ = b.Update(bootDoneMsg{err: errString("no PostgreSQL binaries found: install postgresql or pass --pg-bin")})
	panetest.Golden(t, "boot_error", b.View())
}
