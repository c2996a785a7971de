package ui

import (
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/sim"
)

// The story pane's t draws the message's trace: the API's span, the
// relay's claim and publishes, each consumer's transaction linked in and
// its ACK — and in crash-after-publish the redelivery the inbox knew. No
// span is said to be crashed: a crashed actor's span is never exported, and
// the claim of the relay that went on to mark the row took no virtual time
// (it was said "not ended (crashed)"). In Spanish too.
func TestTraceViewByKeys(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ lang, title, dup, crashed string }{
		{"en", "Trace of", "duplicate (the inbox knew it)", "not ended (crashed)"},
		{"es", "Traza de", "duplicado (el inbox ya lo tenía)", "sin terminar (caída)"},
	} {
		t.Run(c.lang, func(t *testing.T) {
			d := newDriver(t, Options{Scene: "crash-after-publish", Lang: c.lang})
			storyByKeys(t, d)
			d.press("t")
			screen := d.screen()
			for range 5 {
				d.press("pgdown")
				screen += d.screen()
			}
			for _, want := range []string{c.title, "create payment", "claim_batch outbox_messages", "publish payments", "process payments", "ack payments", "↪", c.dup} {
				if !strings.Contains(screen, want) {
					t.Errorf("the trace view lacks %q:\n%s", want, screen)
				}
			}
			if strings.Contains(screen, c.crashed) {
				t.Errorf("the trace view calls an ended span crashed:\n%s", screen)
			}
			if c.lang == "es" {
				// Span names are the engine's statement names and OTel's
				// operation words: identifiers, the same in every language.
				words := strings.NewReplacer("mark_published", "", "claim_batch", "").Replace(screen)
				for _, leak := range catalog.EnglishIn(words, 8, sim.TableNames) {
					t.Errorf("the Spanish trace view shows the English %q (Spanish: %q)", leak[0], leak[1])
				}
			}
			d.press("t")
			if !strings.Contains(d.screen(), "Historia de") && !strings.Contains(d.screen(), "Story of") {
				t.Errorf("t again does not go back to the sequence diagram:\n%s", d.screen())
			}
		})
	}
}
