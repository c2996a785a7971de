package ui

import (
	"strings"
	"testing"
)

// Under --lang es the story pane draws the diagram in Spanish too: the
// learner who opens a message's story with o reads its header, arrows,
// notes and outcome in the screen's language, not English inside a Spanish
// screen.
func TestMessageStoryInSpanish(t *testing.T) {
	d := newDriver(t, Options{Scene: "crash-after-publish", Lang: "es"})
	for i := 0; d.m.pos.Script < d.m.pos.ScriptLen || d.m.pos.Run != ""; i++ {
		if i > 400 {
			t.Fatal("the script does not end")
		}
		d.press("n")
	}
	for d.m.focus != focusTimeline {
		d.press("tab")
	}
	for i := 0; ; i++ {
		e := d.m.timeline.entries[d.m.timeline.selected()]
		if len(e.MessageIDs) == 1 && e.Pipeline == "outbox" {
			break
		}
		if i > 50 {
			t.Fatal("no entry names a message")
		}
		d.press("up")
	}
	d.press("o")
	if !d.m.showStory {
		t.Fatalf("o opened no story: %q", d.m.notice)
	}
	screen := d.screen()
	for range 10 {
		d.press("pgdown")
		screen += d.screen()
	}
	for _, want := range []string{"Historia de …", "mensaje 1 de 1", "pipeline outbox", "reclamar", "publicar", "caída", "duplicado: ignorado",
		"reloj +31s", "2 entregas, 1 efecto (su inbox ignoró 1 duplicado)"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the Spanish story lacks %q:\n%s", want, screen)
		}
	}
	for _, english := range []string{"duplicate: ignored", "deliveries", "publish (attempt", "publish, attempt", "clock +", "✗ crash", "its inbox ignored", "message 1 of 1"} {
		if strings.Contains(screen, english) {
			t.Errorf("the Spanish story shows the English %q:\n%s", english, screen)
		}
	}
}
