package deploy

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/engine/jetstream"
	"github.com/outboxlab/outboxlab/internal/testrun"
)

// A consumer stalled through the faults (notifications, for a minute)
// while payments are published for it: the log says nothing while the
// oldest has waited less than stallAfter (30 s), then one warn line,
// consumer stalled, naming it and how much it owes; once the stall ends and
// it applies again, one info line, consumer resumed. accounting, applying
// all along, gets no line, and no line is said per message.
func TestTheLogSaysAConsumerStalledAndResumed(t *testing.T) {
	t.Parallel()
	var log logBuffer
	l := launchWith(t, jetstream.Config{}, false, 1, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(&log, nil))
		o.stallEvery = 50 * time.Millisecond
	})
	post := func() {
		t.Helper()
		if _, err := l.PostPayment(t.Context(), 1250); err != nil {
			t.Fatal(err)
		}
	}
	post()
	l.until(t, "the first carried", allCarried(1))
	if err := l.Stall("notifications", time.Minute); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		post()
	}
	l.until(t, "accounting applied 4, notifications owing 3", func(s Snapshot) bool {
		return s.Consumer("accounting").Inbox == 4 && s.Consumer("notifications").Unapplied == 3
	})
	// A window for a wrong line: the watcher checks every 50 ms, and six
	// checks in, not one may have said the consumer stalled yet.
	time.Sleep(300 * time.Millisecond)
	if lines := log.lines("consumer"); len(lines) != 0 {
		t.Fatalf("the oldest owed has waited less than %s, and the log says:\n%s", stallAfter, strings.Join(lines, "\n"))
	}
	l.clock.Advance(stallAfter + time.Second) // the stall (a minute) goes on
	waitLog(t, &log, "consumer stalled", "consumer=notifications", "unapplied=3")
	l.clock.Advance(time.Minute) // the stall ends
	waitLog(t, &log, "consumer resumed", "consumer=notifications")
	l.until(t, "all carried", allCarried(4))
	// A window for a wrong line: six more checks, and no further line.
	time.Sleep(300 * time.Millisecond)
	if lines := log.lines("consumer"); len(lines) != 2 || strings.Contains(log.String(), "consumer=accounting") {
		t.Errorf("want one line stalled and one resumed, for notifications alone; the log:\n%s", log.String())
	}
	t.Logf("the log:\n%s", log.String())
}

// waitLog waits up to 10 s for a line of log holding every one of want.
func waitLog(t *testing.T, log *logBuffer, want ...string) string {
	t.Helper()
	var found string
	testrun.Awaited(t, 10*time.Second, fmt.Sprintf("a log line with %q", want), log.String, func(string) bool {
		for _, line := range log.lines(want[0]) {
			all := true
			for _, w := range want[1:] {
				all = all && strings.Contains(line, w)
			}
			if all {
				found = line
				return true
			}
		}
		return false
	})
	return found
}
