package workshop

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/ui"
)

// waitSent waits up to 5 s for ana's program to have got n messages, and
// returns what it got.
func waitSent(t *testing.T, sent func() []tea.Msg, n int) []tea.Msg {
	t.Helper()
	return testrun.Awaited(t, 5*time.Second, fmt.Sprintf("ana's program sent %d messages", n), sent, func(got []tea.Msg) bool { return len(got) >= n })
}

// q asks first, saying how many are connected; y starts a countdown that
// every learner sees; esc takes it back; q during it closes at once.
func TestStoppingTheRoomAsksThenCountsDown(t *testing.T) {
	r, _, sent := roomOnClock(t, "en")
	cancelled := false
	m := instructorModel{room: r, st: roomStyles(), w: wordsFor("en"), sshAddr: "127.0.0.1:2222", cancel: func() { cancelled = true }}
	m, _ = screenText(m)

	m = press(t, m, "q")
	m, s := screenText(m)
	if !strings.Contains(s, "Stop the room? 1 learners connected") || cancelled {
		t.Fatalf("q stopped the room or asked nothing (cancelled %v):\n%s", cancelled, s)
	}
	m = press(t, m, "esc")
	if m.mode != modeTable || cancelled {
		t.Fatalf("esc did not take the question back")
	}
	m = press(t, m, "q", "y")
	m, s = screenText(m)
	if cancelled || !strings.Contains(s, "closing in 10 s") {
		t.Fatalf("y: cancelled %v; want a countdown on the screen:\n%s", cancelled, s)
	}
	got := waitSent(t, sent, 1)
	if c, ok := got[0].(closingMsg); !ok || time.Until(c.at) < 8*time.Second {
		t.Fatalf("ana's program got %v; want the room closing in 10 s", got)
	}
	m = press(t, m, "esc")
	if got := waitSent(t, sent, 2); len(got) < 2 || got[1] != (closingMsg{}) {
		t.Fatalf("esc during the countdown: ana got %v; want the closing taken back", got)
	}
	m = press(t, m, "q", "y", "q")
	if !cancelled {
		t.Error("q during the countdown did not close the room at once")
	}
}

// A learner's screen during the countdown and a standard pause, in their
// language, in a box that fits 80 columns.
func TestTheLearnersBoxesFitAndSpeakTheirLanguage(t *testing.T) {
	for _, lang := range []string{"en", "es"} {
		w := wordsFor(lang)
		m := learnerModel{w: w, width: 80, height: 24, isPaused: true}
		box := m.box(w.paused, m.paused, w.pausedWait)
		if n := strings.Count(box, w.paused); n != 1 {
			t.Errorf("%s: the standard pause says %q %d times", lang, w.paused, n)
		}
		m.isPaused, m.closeAt = false, time.Now().Add(10*time.Second)
		for _, b := range []string{box, m.box(fmt.Sprintf(w.closingIn, 10), "", w.closingWhat)} {
			for _, l := range strings.Split(b, "\n") {
				if lipgloss.Width(l) > 80 {
					t.Errorf("%s: a line of %d columns at 80: %q", lang, lipgloss.Width(l), l)
				}
			}
		}
	}
}

// At 80×24 with 40 learners every selection is on screen, with the keys.
func TestTheListScrollsAt80x24(t *testing.T) {
	r, _, _ := roomOnClock(t, "en")
	ana := r.learners["ana"]
	for i := range 38 {
		id := fmt.Sprintf("l%02d", i)
		l := &learner{id: id, user: id, dir: t.TempDir(), joined: r.now(), lastInput: r.now()}
		if i%3 != 0 {
			l.program = ana.program
		}
		r.learners[id] = l
	}
	m := instructorModel{room: r, st: roomStyles(), w: wordsFor("en"), sshAddr: "127.0.0.1:2222", width: 80, height: 24}
	m, _ = screenText(m)
	for i := range 40 {
		m, s := screenText(m)
		lines := strings.Split(s, "\n")
		if len(lines) > 24 {
			t.Fatalf("selection %d: %d lines at 24", i, len(lines))
		}
		for _, l := range lines {
			if lipgloss.Width(l) > 80 {
				t.Fatalf("selection %d: a line of %d columns: %q", i, lipgloss.Width(l), l)
			}
		}
		id := m.views[m.sel].ID
		if !strings.Contains(s, id+" ") {
			t.Fatalf("selection %d (%s) is not on screen:\n%s", i, id, s)
		}
		if !strings.Contains(lines[len(lines)-1], "q stop") {
			t.Fatalf("selection %d: the keys are not on the last line:\n%s", i, s)
		}
		m = press(t, m, "down")
	}
	// Disconnected learners come last.
	if v := m.views[len(m.views)-1]; v.Connected {
		t.Errorf("the last line is %s, connected; want the disconnected last", v.ID)
	}
}

// The picker opens on the selected learner's lesson, takes a lesson's
// number or part of its name, and sends what is marked.
func TestThePickerOpensOnTheLearnersLessonAndFilters(t *testing.T) {
	r, _, sent := roomOnClock(t, "en")
	ana := r.learners["ana"]
	r.report(ana, ui.LearnerState{Lesson: "inbox", Steps: 3, Place: lessons.PlaceStep, Running: true}, true)
	m := instructorModel{room: r, st: roomStyles(), w: wordsFor("en"), sshAddr: "127.0.0.1:2222", width: 80, height: 24}
	m, _ = screenText(m)
	marked := func(m instructorModel) string {
		t.Helper()
		_, s := screenText(m)
		for l := range strings.SplitSeq(s, "\n") {
			if strings.HasPrefix(l, "▸") {
				return strings.Fields(l)[2]
			}
		}
		t.Fatalf("no lesson marked:\n%s", s)
		return ""
	}
	m = press(t, m, "l")
	if got := marked(m); got != "inbox" {
		t.Errorf("the picker opened on %s, want ana's inbox", got)
	}
	m = press(t, m, "3")
	if got := marked(m); got != r.course[2].Name {
		t.Errorf("3 marks %s, want lesson 3, %s", got, r.course[2].Name)
	}
	m = press(t, m, "backspace", "l", "e", "a")
	if got := marked(m); got != "lease" {
		t.Errorf("typing lea marks %s, want lease", got)
	}
	m = press(t, m, "enter")
	if got := waitSent(t, sent, 1); len(got) != 1 || got[0] != (openLessonMsg{"lease"}) {
		t.Errorf("ana's program got %v, want lease", got)
	}
	// L asks before it sends, naming the lesson and how many.
	m = press(t, m, "L", "enter")
	_, s := screenText(m)
	if !strings.Contains(s, "Send all 1 connected learners to lesson") || len(sent()) != 1 {
		t.Errorf("L sent at once or asked nothing:\n%s", s)
	}
}

// A move of a learner who left is kept: they come back on that lesson and
// are told why.
func TestAMoveOfADisconnectedLearnerIsKept(t *testing.T) {
	r, _, _ := roomOnClock(t, "en")
	if err := r.SendLesson("lease", "bea"); err != nil {
		t.Fatal(err)
	}
	bea := r.learners["bea"]
	if lesson, step := r.resume(bea); lesson != "lease" || step != 0 {
		t.Errorf("bea resumes at %s %d, want lease 0", lesson, step)
	}
	if len(bea.told) != 1 || !strings.Contains(bea.told[0], "the instructor moved you to lesson") || !strings.Contains(bea.told[0], "lease") {
		t.Errorf("bea will be told %q", bea.told)
	}
}

func TestNamesKeepTheirLetters(t *testing.T) {
	for in, want := range map[string]string{"José": "jose", "ZOË": "zoe", "Ana María": "ana_maria", "straße": "strasse", "李": "_", "": "learner"} {
		if got := learnerName(in); got != want {
			t.Errorf("learnerName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := (LearnerView{ID: "jose", User: "José"}).shown(); got != "jose (José)" {
		t.Errorf("shown: %q", got)
	}
	if got := (LearnerView{ID: "ana", User: "ana"}).shown(); got != "ana" {
		t.Errorf("shown: %q", got)
	}
}

// A raised hand goes to the top of the list with its time and line, a
// answers it (the learner is told); w shows the learner's screen and tells
// them; x takes a disconnected learner off the list; E writes a report
// whose counts a restarted room goes on from.
func TestHandsWatchRemoveAndTheReport(t *testing.T) {
	r, clock, sent := roomOnClock(t, "en")
	ana, bea := r.learners["ana"], r.learners["bea"]
	ana.words = wordsFor("en")
	cid := &learner{id: "cid", user: "cid", dir: t.TempDir(), program: ana.program, joined: r.now(), lastInput: r.now()}
	r.learners["cid"] = cid
	r.RaiseHand(cid, "stuck on step 2")
	clock.add(90 * time.Second)
	m := instructorModel{room: r, st: roomStyles(), w: wordsFor("en"), sshAddr: "127.0.0.1:2222", width: 100, height: 30}
	m, s := screenText(m)
	if m.views[0].ID != "cid" || !strings.Contains(line(t, s, "cid"), "✋ 1m30s ago: stuck on step 2") {
		t.Fatalf("cid's raised hand is not first, with its time and line:\n%s", s)
	}
	m = press(t, m, "a")
	if v := r.Learners(); !v[0].Hand.IsZero() && v[0].ID == "cid" {
		t.Error("a left cid's hand up")
	}
	if got := waitSent(t, sent, 1); len(got) != 1 || got[0] != (noticeMsg{wordsFor("en").handSeen}) {
		t.Errorf("cid was told %v", got)
	}

	r.drawn(ana, "ana's screen, line one\nline two")
	m, _ = screenText(m)
	m = selectLearner(t, m, "ana")
	m = press(t, m, "w")
	_, s = screenText(m)
	if !strings.Contains(s, "ana's screen (read-only)") || !strings.Contains(s, "ana's screen, line one") || !r.isWatched(ana) {
		t.Errorf("w shows no look at ana's screen:\n%s", s)
	}
	m = press(t, m, "esc")
	if r.isWatched(ana) {
		t.Error("esc left ana watched")
	}

	m = selectLearner(t, m, "bea")
	m = press(t, m, "x")
	if _, ok := r.learners["bea"]; ok {
		t.Error("x left bea, disconnected, on the list")
	}
	_ = bea

	r.report(ana, ui.LearnerState{Lesson: "inbox", Steps: 3, Place: lessons.PlaceStep, Running: true}, true)
	clock.add(2 * time.Minute)
	r.report(ana, ui.LearnerState{Lesson: "inbox", Steps: 3, Place: lessons.PlacePassed, Running: true}, true)
	path, lines := writeReport(t, r)
	byID := map[string]ReportLine{}
	for _, l := range lines {
		byID[l.Learner] = l
	}
	if a := byID["ana"]; a.StepsPassed != 1 || len(a.StepTimes) != 1 || a.StepTimes[0].Seconds != 120 {
		t.Errorf("ana's report line: %+v; want one step passed in 120 s", a)
	}
	if c := byID["cid"]; c.HandsRaised != 1 {
		t.Errorf("cid's report line: %+v; want one hand raised", c)
	}
	if csv, err := os.ReadFile(strings.TrimSuffix(path, ".json") + ".csv"); err != nil || !strings.Contains(string(csv), "ana,ana,true,inbox") {
		t.Errorf("the CSV: %v\n%s", err, csv)
	}
	// A restarted room reads the counts back.
	if st := loadStats(ana.dir); st.Passed != 1 || len(st.Steps) != 1 {
		t.Errorf("ana's counts kept: %+v", st)
	}
}

// selectLearner moves the selection to id by keys: home, then down.
func selectLearner(t *testing.T, m instructorModel, id string) instructorModel {
	t.Helper()
	m = press(t, m, "g")
	for range m.views {
		if m.views[m.sel].ID == id {
			return m
		}
		m = press(t, m, "down")
	}
	t.Fatalf("%s is not on the list", id)
	return m
}

// What a learner pastes while raising a hand goes with the hand.
func TestAPasteGoesWithTheHand(t *testing.T) {
	m := learnerModel{w: wordsFor("en"), width: 80, height: 24}
	next, _ := m.Update(tea.KeyPressMsg{Code: '!', Text: "!"})
	m = next.(learnerModel)
	if !m.raising {
		t.Fatal("! raised no prompt")
	}
	next, _ = m.Update(tea.PasteMsg{Content: "stuck on step 2"})
	m = next.(learnerModel)
	if got := m.hand.Value(); got != "stuck on step 2" {
		t.Errorf("the hand's line after a paste: %q", got)
	}
}

// A learner who came through the browser says so on the list.
func TestTheListSaysTheDoor(t *testing.T) {
	r, _, _ := roomOnClock(t, "en")
	r.learners["ana"].door = "web"
	m := instructorModel{room: r, st: roomStyles(), w: wordsFor("en"), sshAddr: "127.0.0.1:2222", width: 80, height: 24}
	_, s := screenText(m)
	if l := line(t, s, "ana"); !strings.HasSuffix(strings.TrimSpace(l), " · web") || strings.Contains(line(t, s, "bea"), "web") {
		t.Errorf("ana, in a browser: %q", l)
	}
}

// --roster's names show who has not joined yet, last; s says a line to
// every learner without pausing the room.
func TestTheRosterAndSayingALine(t *testing.T) {
	r, _, sent := roomOnClock(t, "en")
	r.roster = []string{"Ana", "Zoë"}
	m := instructorModel{room: r, st: roomStyles(), w: wordsFor("en"), sshAddr: "127.0.0.1:2222", width: 80, height: 24}
	m, s := screenText(m)
	if l := line(t, s, "zoe"); !strings.Contains(l, "not joined") {
		t.Errorf("zoe, expected, has not joined: %q", l)
	}
	if strings.Count(s, "ana ") != 1 {
		t.Errorf("ana, on the roster and connected, is not one line:\n%s", s)
	}
	if v := m.views[len(m.views)-1]; v.ID != "zoe" || !v.Expected {
		t.Errorf("the last line is %+v, want zoe not joined", v)
	}
	m = press(t, m, "s", "h", "i", "enter")
	if got := waitSent(t, sent, 1); len(got) != 1 || got[0] != (noticeMsg{"» hi"}) || r.Paused() != "" {
		t.Errorf("s hi: ana got %v, the room paused %q", got, r.Paused())
	}
}

// e ends the selected learner's session after a question; an unknown
// name is an error.
func TestEndingALearner(t *testing.T) {
	r, _, _ := roomOnClock(t, "en")
	if err := r.End("nobody"); err != errUnknownLearner {
		t.Errorf("End of no learner: %v", err)
	}
	ended := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := tea.NewProgram(inbox{new(sync.Mutex), new([]tea.Msg)}, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithoutSignalHandler(), tea.WithContext(ctx))
	go func() { _, _ = p.Run(); close(ended) }()
	r.learners["cid"] = &learner{id: "cid", user: "cid", dir: t.TempDir(), program: p, joined: r.now(), lastInput: r.now()}
	m := instructorModel{room: r, st: roomStyles(), w: wordsFor("en"), sshAddr: "127.0.0.1:2222", width: 80, height: 24}
	m, _ = screenText(m)
	m = selectLearner(t, m, "cid")
	m = press(t, m, "e")
	if _, s := screenText(m); !strings.Contains(s, "End cid's session?") {
		t.Fatalf("e asked nothing:\n%s", s)
	}
	press(t, m, "y")
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("cid's program still runs after e y")
	}
}

// writeReport writes the room's report as E does, and reads its JSON back:
// the file's path and its lines.
func writeReport(t *testing.T, r *Room) (string, []ReportLine) {
	t.Helper()
	path, err := r.WriteReport(filepath.Join(t.TempDir(), "class"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []ReportLine
	if err := json.Unmarshal(b, &lines); err != nil {
		t.Fatalf("the report %s: %v\n%s", path, err, b)
	}
	return path, lines
}

// At 80 columns a raised hand's line is cut in its row (the state has 16
// columns): selected, it is read whole under the list, and the list still
// fits the screen.
func TestAnInstructorAt80ColumnsReadsAHandWhole(t *testing.T) {
	r, clock, _ := roomOnClock(t, "en")
	cid := &learner{id: "cid", user: "cid", dir: t.TempDir(), program: r.learners["ana"].program, joined: r.now(), lastInput: r.now()}
	r.learners["cid"] = cid
	long := "stuck on step 2: the relay never marks the row published"
	r.RaiseHand(cid, long)
	clock.add(30 * time.Second)
	m := instructorModel{room: r, st: roomStyles(), w: wordsFor("en"), sshAddr: "127.0.0.1:2222", width: 80, height: 24}
	m, s := screenText(m)
	if m.views[0].ID != "cid" || m.sel != 0 {
		t.Fatalf("cid's hand is not first and selected:\n%s", s)
	}
	if strings.Contains(line(t, s, "cid"), long) {
		t.Fatalf("the row holds the whole line at 80 columns; the test needs a longer one:\n%s", s)
	}
	if words := strings.Join(strings.Fields(s), " "); !strings.Contains(words, "cid ✋ 30s ago: "+long) {
		t.Errorf("the selected hand is not read whole under the list:\n%s", s)
	}
	if n := strings.Count(s, "\n") + 1; n > 24 {
		t.Errorf("the screen is %d lines, the terminal 24:\n%s", n, s)
	}
}
