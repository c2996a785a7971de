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
	t.Parallel()
	d := newDriver(t, Options{Scene: "crash-after-publish", Lang: "es"})
	screen := storyByKeys(t, d)
	for _, want := range []string{"Historia de …", "mensaje 1 de 1", "pipeline outbox", "tomar", "publicar", "caída", "duplicado: ignorado",
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
