package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/deploy"
	"github.com/outboxlab/outboxlab/deployui"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/jetstream"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
)

// liveScreenDriver plays the Bubble Tea runtime for outboxlab live's screen
// on a deployment running for real: each command on its own goroutine,
// each message back to Update one at a time. The screen's own tests
// (deployui) drive a fake; this one drives what the command wires.
type liveScreenDriver struct {
	t    *testing.T
	m    tea.Model
	msgs chan tea.Msg
	seen []string // every screen drawn, for what showed only for a moment
}

// newLiveScreenDriver boots PostgreSQL, launches a deployment on embedded
// JetStream (a 1 s lease: a crashed relay's row is claimed again soon) and
// opens the live screen on it at w×h.
func newLiveScreenDriver(t *testing.T, w, h int) *liveScreenDriver {
	t.Helper()
	srv, err := pg.Boot(context.Background(), pg.Options{DataDir: pgtest.SeededDataDir(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	const db = "screen_outbox"
	if err := srv.CreateDatabase(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	j, err := deploy.OpenJetStream(context.Background(), deploy.BrokerChoice{Kind: deploy.BrokerNATS}, t.TempDir(),
		jetstream.Config{Timeout: 500 * time.Millisecond, AckWait: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d, err := deploy.Launch(ctx, deploy.Options{DatabaseURL: srv.DatabaseURL(db), Broker: j.Broker, Server: j.Server,
		Relay: engine.RelayConfig{PollInterval: 100 * time.Millisecond, Lease: time.Second}})
	if err != nil {
		cancel()
		j.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		d.Wait()
		j.Close()
	})
	ld := &liveScreenDriver{t: t, m: deployui.New(ctx, deployui.Options{Deployment: d, Lang: "en", PsqlURL: srv.DatabaseURL(db)}),
		msgs: make(chan tea.Msg, 64)}
	ld.handle(tea.WindowSizeMsg{Width: w, Height: h})
	ld.exec(ld.m.Init())
	return ld
}

func (d *liveScreenDriver) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		if msg := cmd(); msg != nil {
			d.msgs <- msg
		}
	}()
}

func (d *liveScreenDriver) handle(msg tea.Msg) {
	if batch, ok := msg.(tea.BatchMsg); ok {
		for _, c := range batch {
			d.exec(c)
		}
		return
	}
	next, cmd := d.m.Update(msg)
	d.m = next
	d.seen = append(d.seen, d.screen())
	d.exec(cmd)
}

// screen is the screen drawn, its ANSI stripped and trailing spaces trimmed.
func (d *liveScreenDriver) screen() string {
	lines := strings.Split(ansi.Strip(d.m.View().Content), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

func (d *liveScreenDriver) press(keys ...string) {
	for _, k := range keys {
		if k == "esc" {
			d.handle(tea.KeyPressMsg{Code: tea.KeyEscape})
			continue
		}
		d.handle(tea.KeyPressMsg{Code: []rune(k)[0], Text: k})
	}
}

// waitFor handles messages until the screen matches re, or fails after 20 s.
func (d *liveScreenDriver) waitFor(re string) {
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
func (d *liveScreenDriver) shown(re string) bool {
	rx := regexp.MustCompile(re)
	for _, s := range d.seen {
		if rx.MatchString(s) {
			return true
		}
	}
	return false
}

// carried is the screen of n payments published and applied by both
// consumers (a column each: accounting, notifications).
func carried(n string) string {
	return `(?s)payments +` + n + `\n.*outbox pending +0\n.*published +` + n + `\n.*inbox +` + n + ` +` + n + `\n.*effects +` + n + ` +` + n + `\n`
}

// The live screen driven by keys, as a user would: p three times, the
// figures reach published 3 and both consumers 3; c 1 arms relay-1's crash,
// the next payment's claim fires it and the screen shows relay-1 crashed and
// restarting, then running with one restart, and the payment carried once
// its lease ends; b stops the broker, payments then wait (pending grows, the
// header says stopped), b again starts it and pending drains.
func TestLiveScreenByKeys(t *testing.T) {
	t.Parallel()
	d := newLiveScreenDriver(t, 120, 40)
	d.waitFor(`1 relay-1 +● running`)
	for _, want := range []string{"JetStream embedded in this process", "the step-by-step simulator keeps the in-process broker: only it waits on a virtual clock",
		"relays woken by LISTEN/NOTIFY", "p post a payment", "b stop/start the broker", "q quit"} {
		if !strings.Contains(d.screen(), want) {
			t.Errorf("the screen lacks %q:\n%s", want, d.screen())
		}
	}
	d.press("p", "p", "p")
	d.waitFor(carried("3"))

	d.press("c")
	d.waitFor(`crash which actor\? 1-3, esc cancels\n1-3 which actor • esc cancel`)
	d.press("1")
	d.waitFor(`1 relay-1 +● running ⚑ crash at its next checkpoint`)
	d.press("p")
	d.waitFor(`1 relay-1 +● running restarts: 1`)
	if !d.shown(`1 relay-1 +✗ crashed, restarting in`) {
		t.Error("relay-1 was never shown crashed and restarting")
	}
	d.waitFor(carried("4"))

	d.press("b")
	d.waitFor(`JetStream embedded in this process \(stopped\)`)
	d.waitFor(`(?s)JetStream\n.*stopped: b starts it`)
	d.waitFor(`1 relay-1 +◌ waiting on the broker`)
	d.press("p", "p")
	d.waitFor(`outbox pending +2\n`)
	d.waitFor(`oldest pending +[0-9.]+(ms|s)\n`)
	d.press("b")
	d.waitFor(`JetStream started again on its store`)
	d.waitFor(carried("6"))
	d.waitFor(`JetStream: 0 messages not acked by all`)
	d.waitFor(`1 relay-1 +● running`)

	// esc gives up a choice; a digit past the actors says there is none.
	d.press("s", "esc")
	d.waitFor(`p post a payment`)
	if strings.Contains(d.screen(), "stall which actor") || !strings.Contains(d.screen(), "p post a payment") {
		t.Errorf("after s, esc:\n%s", d.screen())
	}
	d.press("s", "9")
	d.waitFor(`no actor #9`)
	d.press("s", "2")
	d.waitFor(`2 accounting +● running ⚑ stall at its next checkpoint`)

	d.press("q")
	var quit bool
	for !quit {
		select {
		case msg := <-d.msgs:
			_, quit = msg.(tea.QuitMsg)
			if !quit {
				d.handle(msg)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("q did not quit")
		}
	}
}
