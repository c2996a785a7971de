package ui

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/jackc/pgx/v5"
	"github.com/outboxlab/outboxlab/internal/teadrive"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

// driver is the Bubble Tea runtime for a test (teadrive's) with what the
// simulator's tests add: a pipeline's database for what psql shows, and
// waits for the model to settle.
type driver struct {
	*teadrive.Driver[Model]
	t *testing.T
	// url is a pipeline's database ("outbox", "naive"), for what psql shows.
	url func(pipeline string) string
}

// newDriverFor drives m, opened at 120×40. A whole frame is drawn for
// each of the thousands of messages a test handles: the screens are not
// kept.
func newDriverFor(t *testing.T, m Model) *driver {
	d := &driver{Driver: teadrive.New(t, m, 120, 40), t: t}
	d.Forget()
	return d
}

var prefixes atomic.Int64

func newDriver(t *testing.T, opts Options) *driver {
	t.Helper()
	return newDriverOn(t, pgtest.Server(t), opts)
}

// newDriverOn is newDriver on a server of the test's choosing (a quiet one
// for a lesson that reads figures of the whole server).
func newDriverOn(t *testing.T, srv *pg.Server, opts Options) *driver {
	t.Helper()
	ns := pg.OwnNamespace(fmt.Sprintf("ui_%d_%d", time.Now().UnixNano()%1e6, prefixes.Add(1)))
	opts.DBPrefix = ns.Prefix()
	m, err := NewModel(t.Context(), srv, opts)
	if err != nil {
		t.Fatal(err)
	}
	d := newDriverFor(t, m)
	d.url = func(pipeline string) string { return srv.DatabaseURL(ns.Database(pipeline)) }
	t.Cleanup(func() {
		_ = d.M.Close()
		_ = ns.DropAll(context.Background(), srv)
	})
	d.waitFor("the simulation", func(m Model) bool { return m.sim != nil })
	d.settle()
	return d
}

// waitFor handles messages until cond holds.
func (d *driver) waitFor(what string, cond func(Model) bool) {
	d.t.Helper()
	d.waitWithin(60*time.Second, what, cond)
}

// waitWithin is waitFor with a deadline of its own: a chaos run plays its
// 200 schedules for longer than a step takes.
func (d *driver) waitWithin(limit time.Duration, what string, cond func(Model) bool) {
	d.t.Helper()
	d.Until(limit, what, cond)
}

// quiet says the model has nothing under way: no operation, none queued, no
// read of the simulation.
func quiet(m Model) bool {
	return m.run.idle() && !m.run.reading() && !m.tables.Reading()
}

// settle handles messages until the model is idle and nothing arrives for a
// moment (a change notice can trail the operation that caused it).
func (d *driver) settle() {
	d.t.Helper()
	for {
		d.waitFor("idle", quiet)
		if !d.HandleNext(80 * time.Millisecond) {
			return
		}
	}
}

// press presses each key and settles after it. A key that started no
// command, on a model left idle with no message waiting, changed only the
// model: the settle before it waited out what an earlier key started, so
// nothing can trail this one (a quiz's answer, a hint, a pane's scroll),
// and the next key goes at once.
func (d *driver) press(keys ...string) {
	d.t.Helper()
	for _, k := range keys {
		before := d.Started()
		d.Handle(teadrive.KeyPress(k))
		if d.Started() == before && quiet(d.M) && d.Pending() == 0 {
			continue
		}
		d.settle()
	}
}

func (d *driver) oracle(kind string) sim.Oracle {
	for _, o := range d.M.guarantees.Oracles() {
		if o.Pipeline == kind {
			return o
		}
	}
	d.t.Fatalf("no %s oracle on screen", kind)
	return sim.Oracle{}
}

func (d *driver) screen() string { return panetest.Plain(d.M.render()) }

// TestDriveCrashAfterPublish plays the crash-after-publish scene with n, as
// a learner would, and checks what the screen shows against the scene's
// expected outcome; then the learner repeats the lesson by hand.
func TestDriveCrashAfterPublish(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Scene: "crash-after-publish"})
	if !strings.Contains(d.screen(), "crash-after-publish") {
		t.Fatalf("status bar lacks the scene:\n%s", d.screen())
	}
	for i := 0; d.M.pos.Script < len(d.M.scene.Steps) || d.M.pos.Run != ""; i++ {
		if i > 500 {
			t.Fatalf("script not done after 500 steps:\n%s", d.screen())
		}
		d.press("n")
		if d.M.err != nil {
			t.Fatalf("step %d: %v", i, d.M.err)
		}
	}
	o := d.oracle("outbox")
	if o.Publishes != 2 || o.Published != 1 || o.DuplicatesIgnored != 2 || o.DuplicateEffects != 0 || o.LedgerEntries != 1 || o.Notifications != 1 || o.LostEvents != 0 {
		t.Errorf("after the scene: %+v", o)
	}
	scr := d.screen()
	// The metrics pane's "occurred → published" is the table's: the one row
	// marked, published_at - occurred_at (the first try, marked by nobody,
	// counts nothing).
	var waited float64
	conn, err := pgx.Connect(t.Context(), d.url("outbox"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if err := conn.QueryRow(t.Context(), `SELECT extract(epoch FROM percentile_disc(0.5) WITHIN GROUP (ORDER BY published_at - occurred_at))::float8
		FROM outbox_messages WHERE published_at IS NOT NULL`).Scan(&waited); err != nil {
		t.Fatal(err)
	}
	if want := "occurred → published        p50 " + (time.Duration(waited * float64(time.Second))).Round(time.Millisecond).String() + " "; !strings.Contains(scr, want) {
		t.Errorf("screen lacks %q:\n%s", want, scr)
	}
	crashed := false
	for _, e := range d.M.timeline.Entries() {
		crashed = crashed || e.Kind == "crash" && e.Checkpoint == "relay.published"
	}
	if !crashed {
		t.Error("the timeline has no crash of relay-1 at relay.published")
	}
	for _, want := range []string{"dup. ignored       2", "duplicate effects 0 ✓"} {
		if !strings.Contains(scr, want) {
			t.Errorf("screen lacks %q:\n%s", want, scr)
		}
	}
	if d.M.timeline.Total() == 0 || len(d.M.tables.Table().Rows) == 0 {
		t.Errorf("timeline %d entries, table %d rows", d.M.timeline.Total(), len(d.M.tables.Table().Rows))
	}

	// Again by hand: a payment, relay-1 armed to crash at relay.published,
	// run until quiet, the clock past the lease, relay-1 restarted.
	d.press("p")
	d.press("c", "down", "enter") // relay-1
	d.press("down", "down", "enter")
	if !strings.Contains(d.screen(), "crash@published") {
		t.Errorf("the armed crash is not on screen:\n%s", d.screen())
	}
	stepUntilQuiet(d)
	if !strings.Contains(d.screen(), "crashed at published") {
		t.Errorf("relay-1 is not shown crashed at published:\n%s", d.screen())
	}
	d.press("t")
	d.press("c", "down", "enter", "enter") // relay-1 → restart
	stepUntilQuiet(d)
	o = d.oracle("outbox")
	if o.Payments != 2 || o.DuplicatesIgnored != 4 || o.DuplicateEffects != 0 || o.LedgerEntries != 2 {
		t.Errorf("after the manual repeat: %+v\n%s", o, d.screen())
	}

	// Tables: the outbox, scrolled by key and by wheel, rows changed by the
	// last step highlighted.
	if d.M.tables.Table().Name != "outbox_messages" || d.M.tables.Table().Total != 2 {
		t.Errorf("tables pane shows %s with %d rows", d.M.tables.Table().Name, d.M.tables.Table().Total)
	}
	d.press("right")
	if d.M.tables.Table().Name != "inbox_messages" || d.M.tables.Table().Total != 4 {
		t.Errorf("after →, tables pane shows %s with %d rows", d.M.tables.Table().Name, d.M.tables.Table().Total)
	}
	d.Handle(tea.MouseWheelMsg{X: 5, Y: 8, Button: tea.MouseWheelUp})
	d.settle()

	// Reset: a fresh simulation, empty tables.
	d.press("r")
	d.waitFor("the new simulation", func(m Model) bool { return m.sim != nil })
	d.settle()
	if o := d.oracle("outbox"); o.Payments != 0 || d.M.pos.Script != 0 {
		t.Errorf("after reset: payments %d, script at %d", o.Payments, d.M.pos.Script)
	}
}

func stepUntilQuiet(d *driver) {
	d.t.Helper()
	for i := 0; ; i++ {
		if i > 300 {
			d.t.Fatalf("still moving after 300 steps:\n%s", d.screen())
		}
		d.press("n")
		if d.M.run.saysStuck() { // nothing moved: the notice says what would
			return
		}
		if d.M.err != nil {
			d.t.Fatalf("step: %v", d.M.err)
		}
	}
}

// TestDriveComparePlay runs the dual-write scene in compare mode with
// autoplay at full speed, then opens the compare view.
func TestDriveComparePlay(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Scene: "dual-write-crash"})
	for range len(speeds) {
		d.Handle(teadrive.KeyPress("+"))
	}
	d.Handle(teadrive.KeyPress("space"))
	d.waitFor("the scene to play out", func(m Model) bool {
		return !m.run.playing && !m.run.busy && m.pos.Script >= len(m.scene.Steps) && m.pos.Run == ""
	})
	d.settle()
	if d.M.err != nil {
		t.Fatal(d.M.err)
	}
	if n := d.oracle("naive"); n.LostEvents != 1 {
		t.Errorf("naive lost events %d, want 1", n.LostEvents)
	}
	if o := d.oracle("outbox"); o.LostEvents != 0 || o.Effects != 2 {
		t.Errorf("outbox: %+v", o)
	}
	d.press("v")
	scr := d.screen()
	for _, want := range []string{"Naive", "Outbox", "lost events       1 ✗ payment"} {
		if !strings.Contains(scr, want) {
			t.Errorf("compare view lacks %q:\n%s", want, scr)
		}
	}
	// The picker: typing right after / filters (the k of broker does not
	// move the cursor), enter ends the typing and enter opens the scene
	// found (the lessons listed too, the scene's full name puts it first).
	d.press("/")
	for _, r := range "broker-down" {
		d.press(string(r))
	}
	d.press("enter", "enter")
	d.waitFor("broker-down", func(m Model) bool { return m.scene.Name == "broker-down" && m.sim != nil })
}
