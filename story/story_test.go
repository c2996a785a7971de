package story

import (
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/internal/golden"
	"github.com/outboxlab/outboxlab/scenes"
)

// steps counts a story's events of one step, from (or to) one participant
// ("" for any).
func steps(s Story, step Step, from, to string) int {
	n := 0
	for _, e := range s.Events {
		if e.Step == step && (from == "" || e.From == from) && (to == "" || e.To == to) {
			n++
		}
	}
	return n
}

func tally(t *testing.T, s Story, consumer string) Tally {
	t.Helper()
	for _, c := range s.Consumers {
		if c.Consumer == consumer {
			return c
		}
	}
	t.Fatalf("no tally for %s in %+v", consumer, s.Consumers)
	return Tally{}
}

// outcomeOf is a story's outcome in English.
func outcomeOf(s Story) []string {
	out := make([]string, len(s.Outcome))
	for i, t := range s.Outcome {
		out[i] = t.String()
	}
	return out
}

func indexOf(s Story, keep func(Event) bool) int {
	return slices.IndexFunc(s.Events, keep)
}

// The duplicate window: relay-1 publishes, crashes before marking, its lease
// expires and the row is reclaimed and published again with the same id;
// each consumer gets it twice, its inbox ignores the second, one effect each.
func TestCrashAfterPublishStory(t *testing.T) {
	s := build(t, "crash-after-publish", "", "", "1")
	if got := steps(s, Publish, "relay-1", Broker); got != 2 {
		t.Errorf("%d publishes, want 2", got)
	}
	crash := indexOf(s, func(e Event) bool { return e.Step == Crash && e.From == "relay-1" })
	publishes := []int{}
	for i, e := range s.Events {
		if e.Step == Publish {
			publishes = append(publishes, i)
		}
	}
	if crash < 0 || len(publishes) != 2 || crash < publishes[0] || crash > publishes[1] {
		t.Errorf("the crash (event %d) is not between the two publishes %v", crash, publishes)
	} else if !strings.Contains(s.Events[crash].Label.String(), "relay.published") {
		t.Errorf("crash label %q does not say where", s.Events[crash].Label)
	}
	reclaim := indexOf(s, func(e Event) bool {
		return e.Step == Claim && strings.HasPrefix(e.Label.String(), "reclaim: the lease expired")
	})
	if reclaim < crash || reclaim > publishes[len(publishes)-1] {
		t.Errorf("no reclaim of the expired lease between the crash and the second publish: %d", reclaim)
	}
	for _, c := range []string{"accounting", "notifications"} {
		if got := steps(s, Deliver, Broker, c); got != 2 {
			t.Errorf("%s: %d deliveries, want 2", c, got)
		}
		if got := steps(s, Duplicate, c, ""); got != 1 {
			t.Errorf("%s: %d duplicates ignored, want 1", c, got)
		}
		if got := steps(s, Effect, c, PostgreSQL); got != 1 {
			t.Errorf("%s: %d effects, want 1", c, got)
		}
		if tl := tally(t, s, c); tl.Deliveries != 2 || tl.Effects != 1 || tl.Duplicates != 1 {
			t.Errorf("%s: tally %+v, want 2 deliveries, 1 effect, 1 duplicate", c, tl)
		}
	}
	want := []string{Client, "api", PostgreSQL, "relay-1", Broker, "accounting", "notifications"}
	if !slices.Equal(s.Participants, want) {
		t.Errorf("participants %v, want %v", s.Participants, want)
	}
	if !slices.Contains(outcomeOf(s), "published 2 times with the same id, marked published once") {
		t.Errorf("outcome %q does not say it was published twice", s.Outcome)
	}
}

// dedup-window: the republish after the crash reaches the broker inside its
// dedup window and is dropped: the story draws it as a dropped publish, one
// delivery per consumer, and says so.
func TestDedupWindowStory(t *testing.T) {
	s := build(t, "dedup-window", "", "", "1")
	if got, dropped := steps(s, Publish, "relay-1", Broker), steps(s, PublishDropped, "relay-1", Broker); got != 1 || dropped != 1 {
		t.Errorf("%d publishes and %d dropped, want 1 and 1", got, dropped)
	}
	for _, c := range []string{"accounting", "notifications"} {
		if tl := tally(t, s, c); tl.Deliveries != 1 || tl.Effects != 1 || tl.Duplicates != 0 {
			t.Errorf("%s: tally %+v, want 1 delivery, 1 effect", c, tl)
		}
	}
	out := outcomeOf(s)
	if !slices.Contains(out, "published once") ||
		!slices.Contains(out, "1 more publish of the same id inside the broker's dedup window: acked as a duplicate and dropped") {
		t.Errorf("outcome %q", out)
	}
}

// A duplicated delivery shows as two deliveries and one effect, whether the
// broker hands it out again later or to a second worker at the same time.
func TestDuplicateDeliveryStory(t *testing.T) {
	cases := []struct {
		scene   string
		workers []string
		second  string // the second delivery's label
		waits   bool   // a worker waits for the first one's uncommitted inbox key
	}{
		{"two-consumers", []string{"accounting"}, "redeliver (delivery 2)", false},
		{"concurrent-duplicate", []string{"accounting", "accounting-2"}, "redeliver (delivery 2)", true},
		{"crash-before-ack", []string{"accounting"}, "redeliver (delivery 2)", false},
	}
	for _, c := range cases {
		t.Run(c.scene, func(t *testing.T) {
			s := build(t, c.scene, "", "", "1")
			tl := tally(t, s, "accounting")
			if tl.Deliveries != 2 || tl.Effects != 1 || tl.Duplicates != 1 {
				t.Errorf("accounting: %+v, want 2 deliveries, 1 effect, 1 duplicate ignored", tl)
			}
			if !slices.Equal(tl.Workers, c.workers) {
				t.Errorf("workers %v, want %v", tl.Workers, c.workers)
			}
			var delivered []string
			for _, e := range s.Events {
				if e.Step == Deliver && consumerOf(e.To) == "accounting" {
					delivered = append(delivered, e.Label.String())
				}
			}
			if len(delivered) != 2 || delivered[1] != c.second {
				t.Errorf("deliveries to accounting %q, want the second %q", delivered, c.second)
			}
			effects := 0
			for _, w := range c.workers {
				effects += steps(s, Effect, w, PostgreSQL)
			}
			if effects != 1 {
				t.Errorf("%d effect statements by accounting's workers, want 1", effects)
			}
			if got := steps(s, Blocked, "", "") > 0; got != c.waits {
				t.Errorf("a worker waits for a row lock: %v, want %v", got, c.waits)
			}
			if !slices.ContainsFunc(outcomeOf(s), func(l string) bool {
				return strings.HasPrefix(l, "accounting") && strings.Contains(l, "2 deliveries, 1 effect (its inbox ignored 1 duplicate)")
			}) {
				t.Errorf("outcome %q", s.Outcome)
			}
		})
	}
}

// The naive dual write's lost event: committed, then the writer dies before
// publishing. The story ends at COMMIT, with no publish, and says so.
func TestLostEventStory(t *testing.T) {
	t.Parallel()
	s := build(t, "dual-write-crash", "naive", "", "1")
	if s.Pipeline != "naive" {
		t.Fatalf("pipeline %s", s.Pipeline)
	}
	if n := steps(s, Publish, "", "") + steps(s, Deliver, "", ""); n != 0 {
		t.Errorf("%d publishes and deliveries, want none", n)
	}
	last := -1
	for i, e := range s.Events {
		if e.Shape == Arrow || e.Shape == Reply || e.Shape == Lost {
			last = i
		}
	}
	if last < 0 || s.Events[last].Step != Commit || s.Events[last].From != "naive" {
		t.Fatalf("the last arrow is %+v, want naive's COMMIT", s.Events[last])
	}
	crash := indexOf(s, func(e Event) bool { return e.Step == Crash })
	if crash < last || !strings.Contains(s.Events[crash].Label.String(), "committed, not published") {
		t.Errorf("no crash after the COMMIT that says what it left: %+v", s.Events)
	}
	if slices.Contains(s.Participants, Broker) {
		t.Errorf("the broker is a participant of a message it never saw: %v", s.Participants)
	}
	if len(s.Outcome) == 0 || !strings.Contains(s.Outcome[0].String(), "never published") || !strings.Contains(s.Outcome[0].String(), "lost event") {
		t.Errorf("outcome %q does not say the event is lost", s.Outcome)
	}
	// In compare mode both pipelines take the same request: the naive one
	// loses the event, the outbox publishes it.
	naive := build(t, "dual-write-crash", "compare", "naive", "1")
	outbox := build(t, "dual-write-crash", "compare", "outbox", "1")
	if naive.Message != outbox.Message || steps(naive, Publish, "", "") != 0 || steps(outbox, Publish, "", "") != 1 {
		t.Errorf("compare mode: naive %s with %d publishes, outbox %s with %d; want the same message, published by the outbox only",
			naive.Message, steps(naive, Publish, "", ""), outbox.Message, steps(outbox, Publish, "", ""))
	}
}

// The naive publish-then-commit: consumers act on a payment whose COMMIT
// then fails.
func TestPhantomStory(t *testing.T) {
	s := build(t, "dual-write-phantom", "naive", "", "1")
	pub := indexOf(s, func(e Event) bool { return e.Step == Publish && e.From == "naive" })
	failed := indexOf(s, func(e Event) bool { return e.Step == CommitFailed && e.Shape == Lost })
	if pub < 0 || failed < pub {
		t.Errorf("publish at %d, failed COMMIT at %d: want the publish first", pub, failed)
	}
	if len(s.Outcome) == 0 || !strings.Contains(s.Outcome[0].String(), "phantom") {
		t.Errorf("outcome %q", s.Outcome)
	}
	for _, c := range s.Consumers {
		if c.Effects != 1 {
			t.Errorf("%s: %d effects of a phantom payment, want 1", c.Consumer, c.Effects)
		}
	}
}

// Choosing a message: its number, its id, a prefix or the suffix the screen
// shows; anything else is an input error that lists the run's messages.
func TestChoose(t *testing.T) {
	msgs := []MessageRef{
		{ID: "019b796d-d600-7e54-8350-d5f9deb1bbf2", Payment: "019b796d-d600-785d-a811-a8406aa6a684"},
		{ID: "019b796d-d601-7f00-9000-0000002c84307b"},
		{ID: "019b796d-d601-7f00-9000-00000012345678"},
	}
	for _, c := range []struct {
		choice string
		want   int
	}{
		{"1", 0}, {"2", 1}, {"3", 2}, {"…deb1bbf2", 0}, {"deb1bbf2", 0}, {"...2c84307b", 1},
		{"019b796d-d600", 0}, {msgs[1].ID, 1}, {"12345678", 2}, {" 2 ", 1}, {"DEB1BBF2", 0},
	} {
		got, err := Choose(msgs, c.choice)
		if err != nil || got != c.want {
			t.Errorf("Choose(%q) = %d, %v; want %d", c.choice, got, err, c.want)
		}
	}
	for _, c := range []struct{ choice, say string }{
		{"5", "message 5: the run has 3 messages: 1 …deb1bbf2 (payment …6aa6a684), 2 …2c84307b, 3 …12345678"},
		{"0", "message 0: the run has 3 messages"},
		{"019b796d-d601", "message 019b796d-d601 is ambiguous: it names 2 019b796d-d601-7f00-9000-0000002c84307b, 3 019b796d-d601-7f00-9000-00000012345678"},
		{"ffffffff", "message ffffffff: no message id starts or ends so; the run has 3 messages"},
		{"", "which message? the run has 3 messages"},
	} {
		_, err := Choose(msgs, c.choice)
		var input *badinput.Error
		if !errors.As(err, &input) || !strings.Contains(err.Error(), c.say) {
			t.Errorf("Choose(%q) error %v, want an InputError saying %q", c.choice, err, c.say)
		}
	}
	if _, err := Choose(nil, "1"); err == nil || !strings.Contains(err.Error(), "the run has no messages") {
		t.Errorf("no messages: %v", err)
	}
}

func TestBuildRefusesAnAbsentPipeline(t *testing.T) {
	_, err := Build(timeline(t, "crash-after-publish", ""), "naive", "1")
	var input *badinput.Error
	if !errors.As(err, &input) || !strings.Contains(err.Error(), `pipeline "naive": the run has outbox`) {
		t.Errorf("error %v", err)
	}
}

// Every message of every built-in scene: a story whose events name only its
// participants, a diagram no wider than asked at any width, and a Mermaid
// diagram in the grammar, declaring every participant.
func TestEveryBuiltinStory(t *testing.T) {
	all, err := scenes.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range all {
		t.Run(sc.Name, func(t *testing.T) {
			tl := timeline(t, sc.Name, "")
			for _, p := range Pipelines(tl) {
				msgs := Messages(tl, p)
				if len(msgs) == 0 {
					t.Fatalf("%s: no messages", p)
				}
				for i := range msgs {
					s, err := Build(tl, p, msgs[i].ID)
					if err != nil {
						t.Fatal(err)
					}
					checkStory(t, s)
				}
			}
		})
	}
}

func checkStory(t *testing.T, s Story) {
	t.Helper()
	if len(s.Events) == 0 || len(s.Outcome) == 0 {
		t.Errorf("%s: %d events, outcome %q", Short(s.Message), len(s.Events), s.Outcome)
	}
	for _, e := range s.Events {
		for _, p := range []string{e.From, e.To} {
			if p != "" && !slices.Contains(s.Participants, p) {
				t.Errorf("%s: event %+v names %s, not a participant %v", Short(s.Message), e, p, s.Participants)
			}
		}
		if (e.Shape == Arrow || e.Shape == Reply || e.Shape == Lost) && (e.From == "" || e.To == "" || e.From == e.To) {
			t.Errorf("%s: arrow %+v needs two participants", Short(s.Message), e)
		}
		if e.Label.String() == "" || e.Short.String() == "" {
			t.Errorf("%s: event %+v has no label", Short(s.Message), e)
		}
	}
	for _, w := range []int{40, 60, 80, 120, 200} {
		for n, line := range strings.Split(Render(s, w), "\n") {
			if c := utf8.RuneCountInString(line); c > w {
				t.Errorf("%s at %d columns: line %d is %d wide: %q", Short(s.Message), w, n+1, c, line)
			}
		}
	}
	ids, err := parseMermaid(Mermaid(s))
	if err != nil {
		t.Errorf("%s: Mermaid: %v\n%s", Short(s.Message), err, Mermaid(s))
	}
	if len(ids) != len(s.Participants) {
		t.Errorf("%s: Mermaid declares %v for %v", Short(s.Message), ids, s.Participants)
	}
}

// The diagram of crash-after-publish at 120 and 80 columns, as a learner
// reads it in English and in Spanish (go test ./story -run Golden -update
// refreshes them).
func TestGoldenDiagrams(t *testing.T) {
	s := build(t, "crash-after-publish", "", "", "1")
	for _, c := range []struct {
		lang string
		w    int
	}{{"en", 120}, {"en", 80}, {"es", 120}, {"es", 80}} {
		got := RenderIn(s, c.w, catalog.For(c.lang))
		name := "crash-after-publish-" + strconv.Itoa(c.w) + ".txt"
		if c.lang != "en" {
			name = "crash-after-publish-" + c.lang + "-" + strconv.Itoa(c.w) + ".txt"
		}
		golden.Check(t, filepath.Join("testdata", name), got, nil)
	}
}
