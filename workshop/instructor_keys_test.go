package workshop

import (
	"testing"

	"charm.land/bubbles/v2/key"
)

// The instructor's footers are drawn from the key bindings' help: they
// read, in both languages, as the lines the screen has always shown.
func TestInstructorFootersAreTheBindingsHelp(t *testing.T) {
	want := map[string]map[string]string{
		"en": {
			"list":      "↑/↓ select · l lesson · L everyone's · w watch · a answer ✋ · e end · x remove · s say · p pause · E report · q stop",
			"no report": "↑/↓ select · l lesson · L everyone's · w watch · a answer ✋ · e end · x remove · s say · p pause · q stop",
			"picker":    "↑/↓ or a number · type to filter · enter send · esc cancel",
			"pause":     "type the message · enter pause · esc cancel",
			"say":       "type the line · enter says it · esc cancel",
			"stop":      "y stop · Y stop now · esc cancel",
			"confirm":   "y yes · esc no",
			"watch":     "esc back to the room · a answer their hand",
		},
		"es": {
			"list":      "↑/↓ elegir · l lección · L la de todos · w mirar · a responder ✋ · e terminar · x quitar · s decir · p pausa · E informe · q cerrar",
			"no report": "↑/↓ elegir · l lección · L la de todos · w mirar · a responder ✋ · e terminar · x quitar · s decir · p pausa · q cerrar",
			"picker":    "↑/↓ o un número · escribe para filtrar · enter enviar · esc cancelar",
			"pause":     "escribe el mensaje · enter pausar · esc cancelar",
			"say":       "escribe la línea · enter la dice · esc cancela",
			"stop":      "y cerrar · Y cerrar ya · esc cancelar",
			"confirm":   "y sí · esc no",
			"watch":     "esc vuelve a la sala · a responde a su mano",
		},
	}
	for lang, lines := range want {
		k := newInstructorKeys(wordsFor(lang))
		got := map[string][]key.Binding{
			"list": k.list(true), "no report": k.list(false), "picker": k.picker(), "pause": k.pausing(),
			"say": k.saying(), "stop": k.stopping(), "confirm": k.confirming(), "watch": k.watching(),
		}
		for name, line := range lines {
			if s := keyLine(got[name]); s != line {
				t.Errorf("%s %s footer:\n got %q\nwant %q", lang, name, s, line)
			}
		}
	}
}
