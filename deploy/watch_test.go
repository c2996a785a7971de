package deploy

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/outboxlab/outboxlab/engine"
)

// A dead letter is a line of its own, at warn, naming the message; a
// retry scheduled is no line, only counted for the summary; the actor's
// own hook (its faults) still runs for every event.
func TestTheLogSaysEachDeadLetterAndCountsRetries(t *testing.T) {
	t.Parallel()
	var log logBuffer
	d := &Deployment{o: Options{Logger: slog.New(slog.NewTextHandler(&log, nil))}}
	var seen int
	h := d.watch("relay-1", func(context.Context, engine.Event) error { seen++; return nil })
	dead, retried := uuid.New(), uuid.New()
	for _, ev := range []engine.Event{
		{Checkpoint: engine.RelayRetryScheduled, MessageIDs: []uuid.UUID{retried}},
		{Checkpoint: engine.RelayRetryScheduled, MessageIDs: []uuid.UUID{retried}},
		{Checkpoint: engine.RelayDeadLettered, MessageIDs: []uuid.UUID{dead}, Detail: engine.Say("attempt 12 of 12 failed: dead-lettered")},
	} {
		if err := h(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	lines := log.lines("")
	if seen != 3 || len(lines) != 1 || !strings.Contains(lines[0], "level=WARN") || !strings.Contains(lines[0], "dead letter") ||
		!strings.Contains(lines[0], dead.String()) || strings.Contains(log.String(), retried.String()) {
		t.Errorf("hook ran %d times; the log:\n%s\nwant one warn line naming %s, none naming the retried one", seen, log.String(), dead)
	}
	if n := d.retries.Load(); n != 2 {
		t.Errorf("%d retries counted, want 2", n)
	}
}
