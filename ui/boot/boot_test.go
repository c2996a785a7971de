package boot

import (
	"errors"
	"testing"

	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

func TestMain(m *testing.M) { panetest.Main(m) }

func TestBootPaneGolden(t *testing.T) {
	b := New(panetest.Styles())
	b.SetSize(80, 10)
	b, _ = b.Update(ProgressMsg{Progress: pg.Progress{Step: pg.BootStep(0)}})
	b, _ = b.Update(ProgressMsg{Progress: pg.Progress{Step: pg.BootStep(3)}})
	panetest.Golden(t, "boot_starting", b.View())
	b, _ = b.Update(DoneMsg{Err: errors.New("no PostgreSQL binaries found: install postgresql or pass --pg-bin")})
	panetest.Golden(t, "boot_error", b.View())
}
