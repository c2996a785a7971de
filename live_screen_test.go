package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/deploy"
	"github.com/outboxlab/outboxlab/deployui"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/jetstream"
	"github.com/outboxlab/outboxlab/internal/teadrive"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
)

// newLiveScreenDriver boots PostgreSQL, launches a deployment on embedded
// JetStream (a 1 s lease: a crashed relay's row is claimed again soon) and
// opens the live screen on it at w×h.
func newLiveScreenDriver(t *testing.T, w, h int) *teadrive.Driver[deployui.Model] {
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
	// An actor's unexpected end fails the test; relay-1's crash is the
	// test's own (c 1).
	onError := testrun.BackgroundErrors(t, `^relay-1: relay-1 died at relay\.claimed: .*actor crashed; starting it again in 1s$`)
	ctx, cancel := context.WithCancel(context.Background())
	d, err := deploy.Launch(ctx, deploy.Options{DatabaseURL: srv.DatabaseURL(db), Broker: j.Broker, Server: j.Server,
		Relay: engine.RelayConfig{PollInterval: 100 * time.Millisecond, Lease: time.Second}, OnError: onError})
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
	// The screen's own tests (deployui) drive a fake; this one drives
	// what the command wires.
	return teadrive.New(t, deployui.New(ctx, deployui.Options{Deployment: d, Lang: "en", PsqlURL: srv.DatabaseURL(db)}), w, h)
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
	d.WaitFor(`1 relay-1 +● running`)
	for _, want := range []string{"JetStream embedded in this process", "the step-by-step simulator keeps the in-process broker: only it waits on a virtual clock",
		"relays woken by LISTEN/NOTIFY", "p post a payment", "b stop/start the broker", "q quit"} {
		if !strings.Contains(d.Screen(), want) {
			t.Errorf("the screen lacks %q:\n%s", want, d.Screen())
		}
	}
	d.Press("p", "p", "p")
	d.WaitFor(carried("3"))

	d.Press("c")
	d.WaitFor(`crash which actor\? 1-3, esc cancels\n1-3 which actor • esc cancel`)
	d.Press("1")
	d.WaitFor(`1 relay-1 +● running ⚑ crash at its next checkpoint`)
	d.Press("p")
	d.WaitFor(`1 relay-1 +● running restarts: 1`)
	if !d.Shown(`1 relay-1 +✗ crashed, restarting in`) {
		t.Error("relay-1 was never shown crashed and restarting")
	}
	d.WaitFor(carried("4"))

	d.Press("b")
	d.WaitFor(`JetStream embedded in this process \(stopped\)`)
	d.WaitFor(`(?s)JetStream\n.*stopped: b starts it`)
	d.WaitFor(`1 relay-1 +◌ waiting on the broker`)
	d.Press("p", "p")
	d.WaitFor(`outbox pending +2\n`)
	d.WaitFor(`oldest pending +[0-9.]+(ms|s)\n`)
	d.Press("b")
	d.WaitFor(`JetStream started again on its store`)
	d.WaitFor(carried("6"))
	d.WaitFor(`JetStream: 0 messages not acked by all`)
	d.WaitFor(`1 relay-1 +● running`)

	// esc gives up a choice; a digit past the actors says there is none.
	d.Press("s", "esc")
	d.WaitFor(`p post a payment`)
	if strings.Contains(d.Screen(), "stall which actor") || !strings.Contains(d.Screen(), "p post a payment") {
		t.Errorf("after s, esc:\n%s", d.Screen())
	}
	d.Press("s", "9")
	d.WaitFor(`no actor #9`)
	d.Press("s", "2")
	d.WaitFor(`2 accounting +● running ⚑ stall at its next checkpoint`)

	d.Press("q")
	d.WaitQuit(5 * time.Second)
}
