package deployui

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/catalog"
)

// liveDriver plays the Bubble Tea runtime for the live screen, as the
// simulator's tests do for theirs: each command on its own goroutine, each
// message back to Update one at a time.
type liveDriver struct {
	t    *testing.T
	m    Model
	msgs chan tea.Msg
	seen []string // every screen drawn, for what showed only for a moment
}

// fakePsqlURL is the database the fake says holds its payments.
const fakePsqlURL = "postgres://outboxlab@127.0.0.1:5432/live_outbox"

// newLiveDriver opens the live screen at w×h on a fake deployment.
func newLiveDriver(t *testing.T, lang string, w, h int) *liveDriver {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ld := &liveDriver{t: t, m: New(ctx, Options{Deployment: newFakeDeployment(), Lang: lang, PsqlURL: fakePsqlURL}),
		msgs: make(chan tea.Msg, 64)}
	ld.handle(tea.WindowSizeMsg{Width: w, Height: h})
	ld.exec(ld.m.Init())
	return ld
}

func (d *liveDriver) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		if msg := cmd(); msg != nil {
			d.msgs <- msg
		}
	}()
}

func (d *liveDriver) handle(msg tea.Msg) {
	if batch, ok := msg.(tea.BatchMsg); ok {
		for _, c := range batch {
			d.exec(c)
		}
		return
	}
	next, cmd := d.m.Update(msg)
	d.m = next.(Model)
	d.seen = append(d.seen, d.screen())
	d.exec(cmd)
}

func (d *liveDriver) screen() string { return plain(d.m.render()) }

func (d *liveDriver) press(keys ...string) {
	for _, k := range keys {
		d.handle(keyPress(k))
	}
}

// waitFor handles messages until the screen matches re, or fails after 20 s.
func (d *liveDriver) waitFor(re string) {
	d.t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.After(20 * time.Second)
	for !rx.MatchString(d.screen()) {
		select {
		case msg := <-d.msgs:
			d.handle(msg)
		case <-deadline:
			d.t.Fatalf("the screen never matched %q:\n%s", re, d.screen())
		}
	}
}

// shown reports whether any screen drawn so far matched re.
func (d *liveDriver) shown(re string) bool {
	rx := regexp.MustCompile(re)
	for _, s := range d.seen {
		if rx.MatchString(s) {
			return true
		}
	}
	return false
}

// A broker away at the start: the screen opens with no stream to state,
// and states it once the deployment has opened it: the screen follows the
// stream, not only what it saw at start.
func TestLiveScreenSaysTheStreamOnceOpened(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f := newFakeDeployment()
	f.away = true
	d := &liveDriver{t: t, m: New(ctx, Options{Deployment: f, PsqlURL: fakePsqlURL}), msgs: make(chan tea.Msg, 64)}
	d.handle(tea.WindowSizeMsg{Width: 120, Height: 40})
	d.exec(d.m.Init())
	d.waitFor(`relay-1`)
	if strings.Contains(d.screen(), "OUTBOXLAB_OUTBOX") {
		t.Fatalf("a stream stated before it was opened:\n%s", d.screen())
	}
	f.mu.Lock()
	f.away = false
	f.mu.Unlock()
	d.waitFor(`OUTBOXLAB_OUTBOX`)
}

// --lang es: every word of the live screen in Spanish, none of the English
// the catalog translates; a terminal too small says so, in the language.
func TestLiveScreenInSpanish(t *testing.T) {
	d := newLiveDriver(t, "es", 120, 40)
	d.press("p")
	d.waitFor(`(?s)pendientes en outbox +0\n.*publicadas +1\n.*inbox +1 +1\n.*efectos +1 +1\n`)
	screens := []string{d.screen()}
	d.press("c")
	screens = append(screens, d.screen())
	d.press("esc", "b")
	d.waitFor(`detenido: b lo arranca`)
	screens = append(screens, d.screen())
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
	d.handle(tea.WindowSizeMsg{Width: 79, Height: 30})
	if got := d.screen(); got != "terminal demasiado pequeña: la pantalla en vivo necesita 80×22\n" {
		t.Errorf("79 columns: %q", got)
	}
}

// A terminal below 80×22 gets a message instead of a broken layout, and
// the screen comes back at once when it grows.
func TestLiveScreenTooSmall(t *testing.T) {
	d := newLiveDriver(t, "en", 120, 21)
	if got := d.screen(); got != "terminal too small: the live screen needs 80×22\n" {
		t.Errorf("120×21: %q", got)
	}
	d.handle(tea.WindowSizeMsg{Width: 80, Height: 22})
	d.waitFor(`1 relay-1 +● running`)
	d.waitFor(`redelivered +0 +0\n`)
	for i, l := range strings.Split(strings.TrimSuffix(d.screen(), "\n"), "\n") {
		if w := len([]rune(l)); w > 80 {
			t.Errorf("line %d is %d wide at 80 columns: %q", i, w, l)
		}
	}
	if n := strings.Count(d.screen(), "\n"); n > 22 {
		t.Errorf("%d lines at 22 rows:\n%s", n, d.screen())
	}
}

// Snapshots read at once (a tick's, a key's) can answer in either order:
// the screen keeps the newest one asked for, and an older one answering
// last does not undo it (the broker shown running again just after b).
func TestLiveScreenKeepsTheNewestSnapshot(t *testing.T) {
	d := newLiveDriver(t, "en", 120, 40)
	d.waitFor(`relay-1\s+● running`)
	m := &d.m
	older, newer := m.snapshot()().(liveSnapshotMsg), m.snapshot()().(liveSnapshotMsg)
	older.snap.Payments, newer.snap.Payments = 7001, 7002 // told apart on screen
	d.handle(newer)
	d.handle(older)
	if !d.shown(`payments\s+7002`) || d.shown(`payments\s+7001`) {
		t.Fatalf("after the newer snapshot then the older one, the screen shows:\n%s", d.screen())
	}
}
