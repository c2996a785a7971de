package timeline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/internal/teadrive"
	"github.com/outboxlab/outboxlab/screen"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

func TestMain(m *testing.M) { panetest.Main(m) }

func TestTimelinePaneGolden(t *testing.T) {
	p := New(panetest.Styles())
	p, _ = p.Update(EntriesMsg{From: 0, Entries: panetest.Entries()})
	p.SetSize(120, 9)
	panetest.Golden(t, "timeline_120", p.View())
	p.SetSize(80, 6)
	panetest.Golden(t, "timeline_80", p.View())

	// Select the claim and open its SQL.
	p.SetSize(120, 16)
	for range 3 {
		p, _ = p.Update(teadrive.KeyPress("up"))
	}
	p, _ = p.Update(teadrive.KeyPress("enter"))
	panetest.Golden(t, "timeline_sql_120", p.View())

	// A stale read (from the wrong index) is dropped.
	p, _ = p.Update(EntriesMsg{From: 3, Entries: panetest.Entries()})
	if p.total != len(panetest.Entries()) {
		t.Errorf("stale timeline read appended: total %d", p.total)
	}
}

// A timeline entry's sentence continues right of its [statement] tag, not
// under it: continued under the tag, the next entry's [commit] read as more
// of the sentence before.
func TestTimelineSentenceContinuesRightOfItsTag(t *testing.T) {
	tl := New(panetest.Styles())
	tl.SetSize(80, 10)
	e := sim.Entry{Actor: "api", Kind: "checkpoint", Checkpoint: "api.committed", Statement: "commit",
		Explain: "api committed the payment and its outbox row together: a crash from here on loses nothing, the relay will publish the event"}
	lines := tl.entryLines(e, entryMaxLines)
	if len(lines) < 2 {
		t.Fatalf("the entry did not wrap at 80 columns: %q", lines)
	}
	tag := strings.Index(panetest.Plain(lines[0]), "[commit]")
	text := tag + len("[commit] ")
	for _, l := range lines[1:] {
		l = panetest.Plain(l)
		if lead := len(l) - len(strings.TrimLeft(l, " ")); lead < text {
			t.Errorf("a continuation starts at column %d, under the tag (the sentence starts at %d):\n%s", lead, text, panetest.Plain(strings.Join(lines, "\n")))
		}
	}
}

// An id the engine quotes whole inside a sentence (a publish error) is
// written as the timeline writes ids, by its last eight digits: whole, it is
// a word wider than a lesson's column, and the pane cut it.
func TestTimelineWritesQuotedIDsByTheirEnd(t *testing.T) {
	tl := New(panetest.Styles())
	tl.SetSize(69, 10)
	e := sim.Entry{Actor: "relay-1", Kind: "checkpoint", Checkpoint: "relay.retry_scheduled", Statement: "schedule_retry",
		Explain: "relay-1 could not publish …deb1bbf2: retry scheduled with backoff and jitter (attempt 1 failed, next at 12:00:02.324: publish 019b796d-d600-7e54-83a4-1234deb1bbf2: broker is down)"}
	text := panetest.Plain(strings.Join(tl.entryLines(e, entryMaxLines), "\n"))
	if words := strings.Join(strings.Fields(text), " "); strings.Contains(words, "019b796d") || !strings.Contains(words, "publish …deb1bbf2: broker is down") {
		t.Errorf("the quoted id is not written by its end:\n%s", text)
	}
	for _, l := range strings.Split(text, "\n") {
		if strings.HasSuffix(strings.TrimRight(l, " "), "…") {
			t.Errorf("a line is cut:\n%s", text)
		}
	}
}

// A long sentence in a lesson's narrow timeline (69 columns at 120×40)
// goes on under the actor, not in the few cells right of its tag: there, a
// dead letter's error ran out of its eight lines and was cut.
func TestANarrowTimelineReadsALongSentenceWhole(t *testing.T) {
	tl := New(panetest.Styles())
	tl.SetSize(69, 12)
	e := sim.Entry{Actor: "relay-1", Kind: "checkpoint", Checkpoint: "relay.dead_lettered", Statement: "dead_letter",
		Explain: "relay-1 dead-lettered …deb1bbf2 after 12 attempts: no more retries; an operator may requeue it (same id) once the cause is fixed (attempt 12 of 12 failed: dead-lettered: dead letter: broker refused the message: payload fails the topic schema: amount 666 is not allowed)"}
	lines := tl.entryLines(e, entryMaxLines)
	text := panetest.Plain(strings.Join(lines, "\n"))
	if words := strings.Join(strings.Fields(text), " "); !strings.Contains(words, "amount 666 is not allowed)") {
		t.Errorf("the sentence is cut:\n%s", text)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 69 {
			t.Errorf("a line is %d cells wide, the pane 69: the pane cuts it:\n%s", w, text)
		}
	}
}

// At the README's 120 columns a timeline line keeps its consequence: the
// naive crash's "it is lost" wraps instead of being cut.
func TestTimelineKeepsTheConsequence(t *testing.T) {
	p := New(panetest.Styles())
	e := sim.Entry{Actor: "naive", Kind: "crash", Checkpoint: "naive.committed",
		Explain: "naive crashed at naive.committed: its connection closed without COMMIT — but the payment was already committed and the event never published: it is lost"}
	p, _ = p.Update(EntriesMsg{From: 0, Entries: []sim.Entry{e}})
	for _, w := range []int{120, 80} {
		p.SetSize(w, 6)
		if v := screen.OneLine(panetest.Plain(p.View())); !strings.Contains(v, "it is lost") {
			t.Errorf("at %d columns the consequence is cut:\n%s", w, panetest.Plain(p.View()))
		}
	}
}

// Scrolling up over entries that wrap keeps the selected entry on screen,
// down to the very first.
func TestTimelineScrollKeepsTheSelectionOverWrappedEntries(t *testing.T) {
	p := New(panetest.Styles())
	var entries []sim.Entry
	for i := range 30 {
		entries = append(entries, sim.Entry{Actor: "relay-1", Kind: "checkpoint", Checkpoint: "relay.published",
			Explain: fmt.Sprintf("entry %02d: relay-1 published the message with no transaction open; not marked yet: a crash now means it is published again with the same id", i)})
	}
	p, _ = p.Update(EntriesMsg{From: 0, Entries: entries})
	p.SetSize(80, 8)
	for i := range 30 {
		p, _ = p.Update(teadrive.KeyPress("up"))
		want := fmt.Sprintf("entry %02d:", max(0, 28-i))
		if v := panetest.Plain(p.View()); !strings.Contains(v, want) {
			t.Fatalf("after %d presses of up the selected %q is not on screen:\n%s", i+1, want, v)
		}
	}
}
