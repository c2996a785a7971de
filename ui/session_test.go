package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/internal/teadrive"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
)

// entriesJSON is the timeline as `run --json` writes it.
func entriesJSON(t *testing.T, tl []sim.Entry) string {
	t.Helper()
	var b strings.Builder
	if err := sim.WriteJSONLines(&b, tl); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A learner steps a scene by keys, goes back with [ and forward with ],
// forks by acting at a past point, and saves the session with w: each is
// what the screen and the real database show, and the saved file replays
// to the very timeline the session has.
func TestRewindForkAndSaveByKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	d := newDriver(t, Options{Scene: "crash-after-publish", ScenesDir: dir})
	// The script's first commands (request, crash at publish), then steps.
	for range 8 {
		d.press("n")
	}
	if d.M.err != nil {
		t.Fatal(d.M.err)
	}
	straight := d.M.sim.Timeline(0)
	p := d.M.pos
	if p.Len < 8 || p.At != p.Len {
		t.Fatalf("after 8 presses the session stands at %+v", p)
	}
	tables := func() string {
		tb, err := d.M.sim.Table(context.Background(), "outbox", "outbox_messages", 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(tb.Keys, ",") + strings.Join(strings.Fields(strings.Join(flatten(tb.Rows), " ")), " ")
	}
	before := tables()

	// Back three: the timeline on screen is the replay's, shorter; the
	// status line says where the session stands and what acting does.
	d.press("[", "[", "[")
	if d.M.pos.At != p.Len-3 {
		t.Fatalf("after three [ the session is at %d, want %d", d.M.pos.At, p.Len-3)
	}
	if got, want := d.M.timeline.Total(), p.Entries[p.Len-4]; got != want {
		t.Fatalf("the timeline shows %d entries after the rewind, want %d", got, want)
	}
	if !strings.Contains(d.screen(), "rewound: ") {
		t.Fatalf("the screen does not say the session is rewound:\n%s", d.screen())
	}
	// Forward three: the same tables and timeline as before the rewind.
	d.press("]", "]", "]")
	if got := tables(); got != before {
		t.Fatalf("forward again: outbox_messages differ\n got %s\nwant %s", got, before)
	}
	if a, b := entriesJSON(t, d.M.sim.Timeline(0)), entriesJSON(t, straight); a != b {
		t.Fatal("forward again: the timeline differs from the straight run")
	}
	if d.M.timeline.Total() != len(straight) {
		t.Fatalf("the timeline pane shows %d entries, want %d", d.M.timeline.Total(), len(straight))
	}

	// Back two, then a duplicate delivery (d): a fork.
	d.press("[", "[", "d")
	q := d.M.pos
	if q.Forked != p.Len-2 || q.Len != p.Len-1 {
		t.Fatalf("after the fork the session is %+v, want forked at %d", q, p.Len-2)
	}
	if !strings.Contains(d.M.run.notice, "forked") || !strings.Contains(d.screen(), "before the fork") {
		t.Fatalf("the fork is not said or not marked:\n%s", d.screen())
	}
	for range 6 {
		d.press("n")
	}

	// Save: the file is in the scenes folder and replays byte-identically.
	d.press("w")
	files, _ := filepath.Glob(filepath.Join(dir, "crash-after-publish-session-*.scene"))
	if len(files) != 1 || !strings.Contains(d.M.run.notice, files[0]) {
		t.Fatalf("saved files %v; notice %q", files, d.M.run.notice)
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenes.Parse("saved", files[0], strings.NewReader(string(raw)))
	if err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	res, err := sim.RunScene(context.Background(), pgtest.Server(t), sc, sim.RunOptions{DBPrefix: d.M.opts.DBPrefix + "_saved"})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := entriesJSON(t, res.Timeline), entriesJSON(t, d.M.sim.Timeline(0)); a != b {
		t.Fatalf("the saved session replays to another timeline\n%s", raw)
	}
	if !res.Held {
		t.Fatalf("its expectations fail: %+v", res.Checks)
	}
	// A second save never overwrites the first.
	d.press("w")
	if files, _ := filepath.Glob(filepath.Join(dir, "*.scene")); len(files) != 2 {
		t.Fatalf("after a second save: %v", files)
	}
}

func flatten(rows [][]string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

// Scrubbing: the learner moves up the timeline and presses g; the session
// goes back to the point right after that entry happened, which is then the
// newest entry on screen, and ] walks forward again.
func TestScrubTheTimelineByKeys(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Scene: "crash-after-publish"})
	for range 10 {
		d.press("n")
	}
	for d.M.focus != focusTimeline {
		d.press("tab")
	}
	p := d.M.pos
	straight := entriesJSON(t, d.M.sim.Timeline(0))
	d.press("up", "up", "up", "up", "up")
	entry, want, _ := d.M.timeline.Selected()
	d.press("g")
	q := d.M.pos
	if q.At >= p.At || q.Len != p.Len {
		t.Fatalf("g went to %+v from %+v", q, p)
	}
	if n := q.Entries[q.At-1]; n <= entry || q.At > 1 && q.Entries[q.At-2] > entry {
		t.Fatalf("point %d ends at entry %d; the chosen entry was %d", q.At, n, entry)
	}
	tl := d.M.sim.Timeline(0)
	if d.M.timeline.Total() != len(tl) || tl[entry].Explain != want.Explain {
		t.Fatalf("after g the pane shows %d entries (the simulation has %d); entry %d is %q, want %q",
			d.M.timeline.Total(), len(tl), entry, tl[entry].Explain, want.Explain)
	}
	for d.M.pos.At < p.Len {
		d.press("]")
	}
	if got := entriesJSON(t, d.M.sim.Timeline(0)); got != straight {
		t.Fatal("walking forward to the end does not give the straight run's timeline")
	}
}

// storyByKeys plays the scene's script with n, focuses the timeline,
// moves up to an entry about one outbox message and presses o; it returns
// every screen while paging down the story to its end.
func storyByKeys(t *testing.T, d *driver) string {
	t.Helper()
	for i := 0; d.M.pos.Script < d.M.pos.ScriptLen || d.M.pos.Run != ""; i++ {
		if i > 400 {
			t.Fatal("the script does not end")
		}
		d.press("n")
	}
	for d.M.focus != focusTimeline {
		d.press("tab")
	}
	for i := 0; ; i++ {
		_, e, _ := d.M.timeline.Selected()
		if len(e.MessageIDs) == 1 && e.Pipeline == "outbox" {
			break
		}
		if i > 50 {
			t.Fatal("no entry names a message")
		}
		d.press("up")
	}
	d.press("o")
	// The story is read from the database by a command of its own, which
	// a loaded machine may run after the driver's quiet moment.
	d.waitWithin(20*time.Second, "o to open the story", func(m Model) bool { return m.overlays.has(overlayStory) })
	// The diagram is taller than the screen: page down to its end.
	screen := d.screen()
	for range 10 {
		d.press("pgdown")
		screen += d.screen()
	}
	if top, last, lines := d.M.story.Scrolled(); top != last || top == 0 {
		t.Fatalf("paging stopped at line %d of %d", top, lines)
	}
	return screen
}

// One message's story, by keys: the diagram shows the crash, both
// publishes and the inbox ignoring the duplicate; esc closes it.
func TestMessageStoryByKeys(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Scene: "crash-after-publish"})
	screen := storyByKeys(t, d)
	for _, want := range []string{"Story of …", "relay-1", "accounting", "crash", "duplicate", "1 effect"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the story lacks %q:\n%s", want, screen)
		}
	}
	d.press("esc")
	if d.M.overlays.has(overlayStory) {
		t.Fatal("esc did not close the story")
	}
}

// What a review found, by keys: [ pressed fast four times goes back four;
// after a rewind, p numbers its key as it did at that point.
func TestRewindKeysPressedFast(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Scene: "crash-after-publish"})
	d.press("p")
	for range 8 {
		d.press("n")
	}
	p := d.M.pos
	for range 4 {
		d.Handle(teadrive.KeyPress("["))
	}
	d.settle()
	if d.M.pos.At != p.Len-4 {
		t.Fatalf("four fast [ went to %d of %d, want %d", d.M.pos.At, p.Len, p.Len-4)
	}
	for d.M.pos.At > 0 {
		d.press("[")
	}
	if d.M.requests != 0 {
		t.Fatalf("before the learner's payment the screen counts %d payments", d.M.requests)
	}
	// i is in the help before any payment: there it says there is none.
	d.press("i")
	if !strings.Contains(d.M.run.notice, "no payment to send again yet") {
		t.Fatalf("i before any payment says %q", d.M.run.notice)
	}
	d.press("]") // the learner's payment again: k-1
	d.press("p") // a fork: the next payment is k-2, as it would have been
	tl := d.M.sim.Timeline(0)
	if !strings.Contains(entriesJSON(t, tl), "k-2") || d.M.pos.Forked != 1 {
		t.Fatalf("the payment after the rewind is not k-2 (forked at %d):\n%s", d.M.pos.Forked, entriesJSON(t, tl[len(tl)-2:]))
	}
}

// After a fork, u swaps to the other future and back: the learner compares
// the original with the fork on the real database.
func TestOtherFutureByKeys(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Scene: "crash-after-publish"})
	for range 8 {
		d.press("n")
	}
	straight := entriesJSON(t, d.M.sim.Timeline(0))
	d.press("[", "[", "[", "d", "n")
	fork := entriesJSON(t, d.M.sim.Timeline(0))
	if !d.M.keys.Other.Enabled() || fork == straight {
		t.Fatalf("after a fork: u enabled %v, diverged %v", d.M.keys.Other.Enabled(), fork != straight)
	}
	d.press("u")
	if got := entriesJSON(t, d.M.sim.Timeline(0)); got != straight || !strings.Contains(d.M.run.notice, "the other future") {
		t.Fatalf("u did not go to the original (notice %q)", d.M.run.notice)
	}
	if !strings.Contains(d.screen(), "before the fork · ▼ the original future") {
		t.Fatalf("the fork marker does not name the original future now on screen:\n%s", d.screen())
	}
	d.press("u")
	if got := entriesJSON(t, d.M.sim.Timeline(0)); got != fork {
		t.Fatal("u again did not come back to the fork")
	}
	if !strings.Contains(d.screen(), "▼ the new future") {
		t.Fatalf("back on the fork, the marker does not name the new future:\n%s", d.screen())
	}
}
