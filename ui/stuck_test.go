package ui

import (
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/internal/teadrive"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/screen"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

// When nothing moves, the status line names what would, with its key, and
// the whole notice fits at 80 columns.
func TestStatusLineWhenStuck(t *testing.T) {
	cases := []struct {
		name     string
		actors   func([]sim.ActorView) []sim.ActorView
		pgDown   string
		inFlight bool
		want     string
	}{
		{"crashed", func(a []sim.ActorView) []sim.ActorView { return with(a, "api", sim.Crashed) }, "", true, "api crashed: c restarts it"},
		{"stalled", func(a []sim.ActorView) []sim.ActorView { return with(a, "relay-1", sim.Stalled) }, "", true, "relay-1 is stalled: s resumes it"},
		{"broker_down", func(a []sim.ActorView) []sim.ActorView { return with(a, "broker", sim.Down) }, "", true, "nothing moves: the broker is down: b brings it up"},
		{"postgres_down", idle, "postmaster pid 7 is gone", false, "nothing moves: PostgreSQL stopped: R starts it"},
		{"waiting_for_time", idle, "", true, "nothing moves: it waits for time: t moves the clock on"},
		{"nothing_to_do", idle, "", false, "nothing moves: p sends a payment"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := fixtureModel(t, 80, 24, "outbox", 2)
			m.setActors(c.actors(panetest.Actors()))
			m.pgDown, m.inFlight = c.pgDown, c.inFlight
			m.run.notice = m.stuckNotice()
			line := ansi.Strip(m.statusView(80))
			if !strings.Contains(line, c.want) {
				t.Errorf("status line at 80 columns:\n%s\nwant it to show %q whole", line, c.want)
			}
			if (c.name == "crashed" || c.name == "stalled") && strings.Contains(line, "nothing moves") {
				t.Errorf("an actor crashed or stalled holds the work up; other actors may move: %s", line)
			}
			panetest.Golden(t, "status_stuck_"+c.name+"_80", line)
		})
	}
}

func idle(a []sim.ActorView) []sim.ActorView {
	out := make([]sim.ActorView, len(a))
	for i, v := range a {
		v.State = sim.Idle
		out[i] = v
	}
	return out
}

func with(a []sim.ActorView, name string, st sim.ActorState) []sim.ActorView {
	out := idle(a)
	for i := range out {
		if out[i].Name == name {
			out[i].State = st
		}
	}
	return out
}

// v outside compare mode switches to it (the scene starts again with the
// naive dual write beside the outbox); i resends the learner's own last
// payment even after the scene's script sent another.
func TestCompareKeyAndResendByKeys(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Scene: "idempotency-key"})
	d.press("p")
	d.press("n") // the script's first line: a request of its own
	d.press("i")
	var mine string
	for _, e := range d.M.timeline.Entries() {
		if e.Actor == "client" && strings.Contains(e.Explain, "retries") {
			mine = e.Explain
		}
	}
	if !strings.Contains(mine, "Idempotency-Key k-1") {
		t.Fatalf("i resent %q, want the learner's k-1", mine)
	}
	d.press("v")
	d.waitFor("compare mode", func(m Model) bool { return m.sim != nil && m.settings.Mode == "compare" })
	d.settle()
	if !d.M.compareView || len(d.M.sim.Pipelines()) != 2 {
		t.Fatalf("v did not open compare mode: view %v, %d pipelines", d.M.compareView, len(d.M.sim.Pipelines()))
	}
	// v again: the main view of compare mode; once more: back to the
	// scene's own mode. Another scene always opens in its own mode.
	d.press("v")
	if d.M.compareView || d.M.settings.Mode != "compare" {
		t.Fatalf("second v: view %v, mode %s", d.M.compareView, d.M.settings.Mode)
	}
	d.press("v")
	d.waitFor("the scene's own mode", func(m Model) bool { return m.sim != nil && m.settings.Mode == "outbox" })
	d.press("v")
	d.waitFor("compare mode again", func(m Model) bool { return m.sim != nil && m.settings.Mode == "compare" })
	d.settle()
	d.M.scene, _ = scenes.Find(d.M.all, "poison-message")
	if set := d.M.page.(*simulatorPage).settings(d.M.pageCtx()); set.Mode != "outbox" {
		t.Errorf("another scene opens in mode %s after v, want its own (outbox)", set.Mode)
	}
}

// play's captions are plain text: a lesson's `code` and **bold** marks are
// not shown raw.
func TestCaptionsHaveNoMarkdownMarks(t *testing.T) {
	p := &playPage{play: playState{caption: "Step 1/2 · Task: send a payment (`request`), then **crash** relay-1"}}
	got := strings.Join(p.captionLines(120), " ")
	if strings.ContainsAny(got, "`*") || !strings.Contains(got, "send a payment (request), then crash relay-1") {
		t.Errorf("caption %q", got)
	}
}

// The lesson pane grows with the terminal: at 250 columns a check line is
// read whole, at 120 the pane keeps its 50.
func TestLessonPaneGrowsWithTheTerminal(t *testing.T) {
	for _, c := range []struct{ w, min, max int }{{120, 50, 50}, {160, 60, 70}, {250, 95, 100}} {
		m := fixtureModel(t, c.w, 50, "outbox", 1)
		s := (&lessonPage{}).layout(m.pageCtx(), regions{body: rect{0, 1, c.w, 48}})
		if s.lesson.w < c.min || s.lesson.w > c.max {
			t.Errorf("at %d columns the lesson pane is %d wide, want %d to %d", c.w, s.lesson.w, c.min, c.max)
		}
	}
}

// Rebuilding a lesson's simulation (r, a fresh step) starts the step over on
// a server too: its checks are evaluated anew, never carried from the old
// simulation.
func TestRebuildStartsTheLessonStepOver(t *testing.T) {
	d := newDriver(t, Options{Lesson: "duplicate", Lang: "en"})
	d.M.lesson.SetOutcomes(nil, true) // the step passed
	d.Run(d.M.buildSim())
	d.waitFor("the new simulation", func(m Model) bool { return m.sim != nil })
	if d.M.lesson.Place() != lessons.PlaceStep {
		t.Fatalf("after a rebuild the lesson is at place %s, want the step itself", d.M.lesson.Place())
	}
	if len(d.M.lesson.PSQL()) == 0 {
		t.Error("no psql command for the databases on screen")
	}
}

// h pressed while a fresh step's simulation is still being built (no actors
// on screen yet) shows the keys once the actors arrive. (That a carried
// note goes once its actor is restarted is the lesson pane's own test.)
func TestHintKeysFollowTheActors(t *testing.T) {
	d := newDriver(t, Options{Lesson: "race", Lang: "en"})
	actors := d.M.actors
	d.M.setActors(nil)
	d.press("h")
	if strings.Contains(d.M.lesson.KeyHint(), "`m\u00a0") {
		t.Fatalf("keys for actors not on screen yet: %s", d.M.lesson.KeyHint())
	}
	d.M.setActors(actors)
	if !strings.Contains(d.M.lesson.KeyHint(), "`m\u00a03\u00a04` until accounting consumer.inbox_inserted") {
		t.Fatalf("the hint was not drawn again with the actors: %s", d.M.lesson.KeyHint())
	}
}

// At 80 columns a dialog keeps its choices inside the screen: the notes go.
func TestDialogFitsAt80Columns(t *testing.T) {
	m := fixtureModel(t, 80, 24, "outbox", 1)
	m.sim = &sim.Sim{} // keys that need a simulation are enabled; nothing calls it here
	m.updateKeys()
	for _, keys := range [][]string{{"m", "4"}, {"c", "4"}} {
		mm := m
		for _, k := range keys {
			mm = send(t, mm, teadrive.KeyPress(k))
		}
		for i, l := range strings.Split(panetest.Plain(mm.render()), "\n") {
			if w := len([]rune(l)); w > 80 {
				t.Errorf("%v: line %d is %d wide", keys, i, w)
			}
		}
		if !strings.Contains(panetest.Plain(mm.render()), "until consumer.acked") && !strings.Contains(panetest.Plain(mm.render()), "at consumer.acked") {
			t.Errorf("%v: the dialog's last choice is cut:\n%s", keys, panetest.Plain(mm.render()))
		}
	}
}

// The notice that nothing moves is history after the next action: kept, it
// said "p sends a payment" in the CDC lesson while relay-1, crashed since,
// held the payments sent after it.
func TestStuckNoticeGoesWithTheNextAction(t *testing.T) {
	d := newDriver(t, Options{Lesson: "relay", Lang: "en", ProgressPath: filepath.Join(t.TempDir(), "progress.json")})
	d.press("n")
	if !strings.Contains(d.M.run.notice, "p sends a payment") {
		t.Fatalf("a step with nothing to do: notice %q", d.M.run.notice)
	}
	d.press("p")
	if strings.Contains(d.M.run.notice, "nothing moves") {
		t.Errorf("after a payment the status line still says %q", d.M.run.notice)
	}
}

// ? in the free simulator names what o acts on in the pane that has it: the
// tables' o switches pipeline ("the other pipeline's tables"), the
// timeline's opens a message's story, as the README says; "o other
// pipeline" read as what o does anywhere.
func TestFullHelpSaysWhatOActsOn(t *testing.T) {
	m := fixtureModel(t, 120, 40, "compare", 2)
	m.focus = focusTables
	m.setFocus()
	m.updateKeys()
	m.help.ShowAll = true
	v := panetest.Plain(m.helpView())
	if !strings.Contains(v, "o    the other pipeline's tables") && !strings.Contains(v, "o the other pipeline's tables") {
		t.Errorf("the tables' o in ?:\n%s", v)
	}
	if strings.Contains(v, "other pipeline\n") || strings.HasSuffix(strings.TrimSpace(v), "other pipeline") {
		t.Errorf("? says o is 'other pipeline':\n%s", v)
	}
}

// In duplicate's first step a payment run before the crash is armed is
// published and marked: published == 0 can never hold again, and the pane
// says so, with r, naming the check as its line above does (in Spanish in
// Spanish); h shows r with every hint.
func TestAStepThatCannotPassSaysSo(t *testing.T) {
	t.Parallel()
	for lang, want := range map[string][2]string{
		"en": {"this step cannot pass any more (oracle: published == 0): r starts it again", "`r` starts this step again"},
		"es": {"este paso ya no puede superarse (oráculo: publicadas == 0): r lo empieza de nuevo", "`r` vuelve a empezar este paso"},
	} {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			stepCannotPass(t, lang, want)
		})
	}
}

// stepCannotPass is TestAStepThatCannotPassSaysSo in one language: want is
// what the footer says, then what the hint says of r.
func stepCannotPass(t *testing.T, lang string, want [2]string) {
	d := newDriver(t, Options{Lesson: "duplicate", Lang: lang, ProgressPath: filepath.Join(t.TempDir(), "progress.json")})
	d.press("h")
	if h := strings.Join(d.M.lesson.Content(), "\n"); !strings.Contains(panetest.Plain(h), strings.Trim(want[1], "`")[2:]) {
		t.Errorf("%s: the hint does not show r:\n%s", lang, panetest.Plain(h))
	}
	// The fastest autoplay (16 steps a second), as the lessons by keys
	// play: the default 2 a second spent seconds waiting.
	d.press("+", "+", "+", "p", "space")
	d.waitFor("the run to end", func(m Model) bool { return !m.run.playing && m.run.idle() })
	d.settle()
	if got := screen.OneLine(panetest.Plain(strings.Join(d.M.lesson.DeadLines(), " "))); !strings.Contains(got, want[0]) {
		t.Errorf("%s: the footer does not say the step cannot pass:\n%s", lang, got)
	}
	for _, size := range clipSizes {
		d.Handle(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		d.settle()
		if shown := screen.OneLine(panetest.Plain(d.M.lesson.View())); !strings.Contains(shown, want[0][:30]) {
			t.Errorf("%s at %d×%d: the lesson pane does not show that the step cannot pass:\n%s", lang, size[0], size[1], panetest.Plain(d.M.lesson.View()))
		}
	}
	d.press("r")
	d.waitFor("the new simulation", func(m Model) bool { return m.sim != nil && !m.run.busy })
	d.settle()
	if d.M.lesson.Dead() != nil {
		t.Errorf("%s: after r the step is still said unpassable", lang)
	}
}
