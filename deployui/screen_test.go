package deployui

import (
	"context"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/internal/teadrive"
)

// fakePsqlURL is the database the fake says holds its payments.
const fakePsqlURL = "postgres://outboxlab@127.0.0.1:5432/live_outbox"

// newLiveDriver opens the live screen at w×h on a fake deployment.
func newLiveDriver(t *testing.T, lang string, w, h int) *teadrive.Driver[Model] {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return teadrive.New(t, New(ctx, Options{Deployment: newFakeDeployment(), Lang: lang, PsqlURL: fakePsqlURL}), w, h)
}

// A broker away at the start: the screen opens with no stream to state,
// and states it once the deployment has opened it: the screen follows the
// stream, not only what it saw at start.
func TestLiveScreenSaysTheStreamOnceOpened(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f := newFakeDeployment()
	f.away = true
	d := teadrive.New(t, New(ctx, Options{Deployment: f, PsqlURL: fakePsqlURL}), 120, 40)
	d.WaitFor(`relay-1`)
	if strings.Contains(d.Screen(), "OUTBOXLAB_OUTBOX") {
		t.Fatalf("a stream stated before it was opened:\n%s", d.Screen())
	}
	f.mu.Lock()
	f.away = false
	f.mu.Unlock()
	d.WaitFor(`OUTBOXLAB_OUTBOX`)
}

// --lang es: every word of the live screen in Spanish, none of the English
// the catalog translates; a terminal too small says so, in the language.
func TestLiveScreenInSpanish(t *testing.T) {
	d := newLiveDriver(t, "es", 120, 40)
	d.Press("p")
	d.WaitFor(`(?s)pendientes en outbox +0\n.*publicadas +1\n.*inbox +1 +1\n.*efectos +1 +1\n`)
	screens := []string{d.Screen()}
	d.Press("c")
	screens = append(screens, d.Screen())
	d.Press("esc", "b")
	d.WaitFor(`detenido: b lo arranca`)
	screens = append(screens, d.Screen())
	screen := strings.Join(screens, "\n")
	for _, want := range []string{"Actores", "Cifras", "leídas de la base de datos", "pendientes en outbox", "pendiente más antiguo",
		"JetStream embebido en este proceso", "el simulador paso a paso mantiene el broker en proceso", "¿a qué actor hacer caer\\? 1-3, esc cancela",
		"enviar un pago", "parar/arrancar el broker", "salir", "● en marcha", "por consumidor", "deteniendo JetStream|JetStream detenido"} {
		if !regexp.MustCompile(want).MatchString(screen) {
			t.Errorf("the Spanish screen lacks %q:\n%s", want, screen)
		}
	}
	for _, leak := range catalog.EnglishIn(screen, 8, nil) {
		t.Errorf("the Spanish screen shows the English %q (Spanish: %q)", leak[0], leak[1])
	}
	d.Handle(tea.WindowSizeMsg{Width: 79, Height: 30})
	if got := d.Screen(); got != "terminal demasiado pequeña: la pantalla en vivo necesita 80×22\n" {
		t.Errorf("79 columns: %q", got)
	}
}

// A terminal below 80×22 gets a message instead of a broken layout, and
// the screen comes back at once when it grows.
func TestLiveScreenTooSmall(t *testing.T) {
	d := newLiveDriver(t, "en", 120, 21)
	if got := d.Screen(); got != "terminal too small: the live screen needs 80×22\n" {
		t.Errorf("120×21: %q", got)
	}
	d.Handle(tea.WindowSizeMsg{Width: 80, Height: 22})
	d.WaitFor(`1 relay-1 +● running`)
	d.WaitFor(`redelivered +0 +0\n`)
	for i, l := range strings.Split(strings.TrimSuffix(d.Screen(), "\n"), "\n") {
		if w := len([]rune(l)); w > 80 {
			t.Errorf("line %d is %d wide at 80 columns: %q", i, w, l)
		}
	}
	if n := strings.Count(d.Screen(), "\n"); n > 22 {
		t.Errorf("%d lines at 22 rows:\n%s", n, d.Screen())
	}
}

// Snapshots read at once (a tick's, a key's) can answer in either order:
// the screen keeps the newest one asked for, and an older one answering
// last does not undo it (the broker shown running again just after b).
func TestLiveScreenKeepsTheNewestSnapshot(t *testing.T) {
	d := newLiveDriver(t, "en", 120, 40)
	d.WaitFor(`relay-1\s+● running`)
	m := &d.M
	older, newer := m.snapshot()().(liveSnapshotMsg), m.snapshot()().(liveSnapshotMsg)
	older.snap.Payments, newer.snap.Payments = 7001, 7002 // told apart on screen
	d.Handle(newer)
	d.Handle(older)
	if !d.Shown(`payments\s+7002`) || d.Shown(`payments\s+7001`) {
		t.Fatalf("after the newer snapshot then the older one, the screen shows:\n%s", d.Screen())
	}
}
