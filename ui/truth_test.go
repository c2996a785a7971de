package ui

import (
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/sim"
)

// A timeline entry's sentence continues right of its [statement] tag, not
// under it: continued under the tag, the next entry's [commit] read as more
// of the sentence before.
func TestTimelineSentenceContinuesRightOfItsTag(t *testing.T) {
	tl := newTimelinePane(testStyles())
	tl.SetSize(80, 10)
	e := sim.Entry{Actor: "api", Kind: "checkpoint", Checkpoint: "api.committed", Statement: "commit",
		Explain: "api committed the payment and its outbox row together: a crash from here on loses nothing, the relay will publish the event"}
	lines := tl.entryLines(e, entryMaxLines)
	if len(lines) < 2 {
		t.Fatalf("the entry did not wrap at 80 columns: %q", lines)
	}
	tag := strings.Index(plain(lines[0]), "[commit]")
	text := tag + len("[commit] ")
	for _, l := range lines[1:] {
		l = plain(l)
		if lead := len(l) - len(strings.TrimLeft(l, " ")); lead < text {
			t.Errorf("a continuation starts at column %d, under the tag (the sentence starts at %d):\n%s", lead, text, plain(strings.Join(lines, "\n")))
		}
	}
}
