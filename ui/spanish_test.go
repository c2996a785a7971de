package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/internal/teadrive"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/ui/boot"
	"github.com/outboxlab/outboxlab/ui/guarantees"
	"github.com/outboxlab/outboxlab/ui/overlay/chooser"
	"github.com/outboxlab/outboxlab/ui/panetest"
	"github.com/outboxlab/outboxlab/ui/timeline"
)

// Under --lang es the screen's own words are Spanish: the status line, the
// help, the dialogs, the pane titles and figures, the notices. The test draws
// each in Spanish and fails on any English text the catalog translates.
func TestTheScreenSpeaksSpanish(t *testing.T) {
	var views []string
	m := fixtureModelIn(t, 160, 50, "compare", 3, "es")
	views = append(views, m.render())
	m.help.ShowAll = true
	for _, f := range []focus{focusTables, focusTimeline} {
		m.focus = f
		m.setFocus()
		views = append(views, m.helpView())
	}
	m.focus = focusTables
	m.setFocus()
	m.help.ShowAll = false
	for _, fault := range []string{"crash", "stall", "move", "advance", "fail"} {
		c := chooser.New(m.st, fault, panetest.CompareActors(), m.settings)
		views = append(views, c.View())
		if fault != "advance" && fault != "fail" {
			c, _ = c.Update(teadrive.KeyPress("2")) // accounting: which pipeline's?
			views = append(views, c.View())
			c, _ = c.Update(teadrive.KeyPress("3"))
			views = append(views, c.View())
		}
	}
	for _, st := range []sim.ActorState{sim.Crashed, sim.Stalled} {
		mm := m
		mm.setActors(with(panetest.Actors(), "relay-1", st))
		mm.run.notice = mm.stuckNotice()
		views = append(views, mm.statusView(160))
	}
	mm := m
	mm.setActors(idle(panetest.Actors()))
	mm.run.notice = mm.stuckNotice()
	views = append(views, mm.statusView(160))
	mm = m
	mm.err = &sim.PostgresDownError{Reason: "postmaster pid 28979 is gone (killed, or crashed)",
		Why: sim.Text{Key: "postmaster pid %s is gone (killed, or crashed)", Args: []any{"28979"}}}
	views = append(views, mm.statusView(200))
	mm.err = fmt.Errorf("restart relay-1: %w", &sim.ScriptError{Reason: "relay-1 is not crashed", Say: sim.Text{Key: "%s is not crashed", Args: []any{"relay-1"}}})
	views = append(views, mm.statusView(200))
	b := boot.New(m.st)
	b.SetSize(120, 20)
	b, _ = b.Update(boot.ProgressMsg{Progress: pgProgress(int(pg.BootResolving), "")})
	views = append(views, b.View())
	b, _ = b.Update(boot.ProgressMsg{Progress: pgProgress(int(pg.BootStarting), "")})
	b, _ = b.Update(boot.DoneMsg{Err: errString("no PostgreSQL")})
	views = append(views, b.View())
	g := guarantees.New(m.st)
	g, _ = g.Update(guarantees.StaleMsg{Why: "postmaster pid 7 is gone"})
	g.SetSize(80, 6)
	views = append(views, g.View())
	tl := timeline.New(m.st)
	tl.SetSize(100, 4)
	views = append(views, tl.View())
	// The timeline's sentences, as the simulator keeps them.
	tl, _ = tl.Update(timeline.EntriesMsg{From: 0, Entries: []sim.Entry{
		{Actor: "relay-1", Kind: "checkpoint", Checkpoint: "relay.published", Explain: "English kept for run",
			Say: &sim.Text{Key: "%s published %s with no transaction open; not marked yet: a crash now means it is published again, same id", Args: []any{"relay-1", "…deb1bbf2"}}},
		{Actor: "relay-1", Kind: "checkpoint", Checkpoint: "relay.retry_scheduled", Explain: "English kept for run",
			Say: &sim.Text{Key: "%s could not publish %s: retry scheduled with backoff and jitter%s", Args: []any{"relay-1", "…deb1bbf2",
				sim.Text{Key: " (%s)", Args: []any{engine.Say("attempt %d failed, next at %s", 1, "12:00:31.000")}}}}},
		{Actor: "accounting", Kind: "checkpoint", Checkpoint: "consumer.acked", Explain: "English kept for run",
			Say: &sim.Text{Key: "%s ACKed %s: the broker forgets it", Args: []any{"accounting", "…deb1bbf2"}}},
	}})
	tl.SetSize(160, 12)
	views = append(views, tl.View())

	screen := panetest.Plain(strings.Join(views, "\n"))
	// Table and column names are SQL identifiers: they stay as the schema
	// writes them in every language.
	identifiers := append(append([]string{}, sim.TableNames...), panetest.Table().Columns...)
	for _, leak := range catalog.EnglishIn(screen, 8, identifiers) {
		t.Errorf("the Spanish screen shows the English %q (Spanish: %q)", leak[0], leak[1])
	}
	if strings.Contains(screen, "English kept for run") {
		t.Error("the timeline shows the English Explain instead of the catalog sentence")
	}
	for _, want := range []string{"escena", "Garantías", "Cronología", "nada avanza", "¿qué actor debe caer?", "¿qué actor congelar?", "de qué pipeline?", "eventos perdidos", "hizo ACK de", "sin ninguna transacción abierta",
		"falló el intento 1, el siguiente a las", "entrada más antigua", "primera fila", "PostgreSQL se detuvo: el postmaster (pid 28979) ha desaparecido", "buscando los binarios", "PostgreSQL no arrancó", "relay-1 no está caído"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the Spanish screen lacks %q", want)
		}
	}
}

// Why PostgreSQL did not start is said in the learner's language where pg
// keeps its words: here a --data-dir that is a file, through the real Boot.
func TestBootFailureSpeaksSpanish(t *testing.T) {
	// In a folder every account can reach (the test may run as root, whose
	// server runs as another account): a test data directory's path, made
	// a file.
	file := pgtest.DataDir(t)
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := pg.Boot(t.Context(), pg.Options{DataDir: file})
	if err == nil {
		t.Fatal("a file as data directory booted")
	}
	st := DefaultStyles(true)
	st.Words = catalog.For("es")
	b := boot.New(&st)
	b.SetSize(120, 20)
	b, _ = b.Update(boot.DoneMsg{Err: err})
	screen := panetest.Plain(b.View())
	if !strings.Contains(screen, "no es un directorio") || strings.Contains(screen, "not a directory") {
		t.Fatalf("the boot failure is not said in Spanish:\n%s", screen)
	}
	if os.Geteuid() == 0 {
		// As root, a folder the server's account cannot reach is said too.
		_, err := pg.Boot(t.Context(), pg.Options{DataDir: filepath.Join(t.TempDir(), "data")})
		b, _ = b.Update(boot.DoneMsg{Err: err})
		if screen := panetest.Plain(b.View()); !strings.Contains(screen, "no es accesible para") {
			t.Errorf("an unreachable data directory is not said in Spanish:\n%s", screen)
		}
	}
	if !catalog.Known(pg.InstallHelp) {
		t.Error("pg.InstallHelp has no Spanish in the catalog")
	}
}
