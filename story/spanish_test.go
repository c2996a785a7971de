package story

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/scenes"
)

// neutral are the story's texts that are the same in every language: SQL,
// HTTP and protocol words, and formats that only join other texts. The
// catalog must not hold them, or it would say them some other way.
var neutral = []string{
	"%s", "%s %s", "%s: %s", "%s: %s, %s", "%s (%s)", "%s (workers %s)", "✗ %s", "⚑ %s",
	"BEGIN", "COMMIT", "POST /payments", "POST /charges", "%s Created", "✗ error", "UPDATE+INSERT v2",
	"SELECT: %d", "inbox", "ACK", "ACK%s", "NACK",
}

// keys lists every catalog key a text says, its arguments' too.
func keys(t Text, out *[]string) {
	if t.Key == "" {
		return
	}
	*out = append(*out, t.Key)
	for _, a := range t.Args {
		switch v := a.(type) {
		case Text:
			keys(v, out)
		case []Text:
			for _, c := range v {
				keys(c, out)
			}
		}
	}
}

// identifiers are the names a Spanish diagram shows as they are:
// checkpoints (relay.published), statements (insert_ledger_entry) and
// scene commands (fail-commit) and the HTTP path (/payments).
var identifiers = regexp.MustCompile(`[a-z]+[._-][a-z_.-]+|/[a-z]+`)

// comment is a Mermaid comment line.
var comment = regexp.MustCompile(`(?m)^ *%%.*$`)

// Under --lang es a story says its own words in Spanish: every message of
// every built-in scene, drawn at several widths, shows none of the English
// the catalog translates (its labels, notes, header and outcome, and the
// timeline's sentences it quotes), says only texts the catalog knows or
// that are the same in every language, and keeps every line within the
// width asked for. Its Mermaid diagram stays in the grammar.
func TestEveryStoryInSpanish(t *testing.T) {
	t.Parallel()
	es := catalog.For("es")
	for _, k := range neutral {
		if catalog.Known(k) {
			t.Errorf("%q is said the same in every language, yet the catalog translates it", k)
		}
	}
	all, err := scenes.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var screen strings.Builder
	for _, sc := range all {
		tl := timeline(t, sc.Name, "")
		for _, p := range Pipelines(tl) {
			for _, m := range Messages(tl, p) {
				s, err := Build(tl, p, m.ID)
				if err != nil {
					t.Fatal(err)
				}
				var ks []string
				for _, e := range s.Events {
					keys(e.Label, &ks)
					keys(e.Short, &ks)
				}
				for _, o := range s.Outcome {
					keys(o, &ks)
				}
				for _, k := range ks {
					if !catalog.Known(k) && !slices.Contains(neutral, k) {
						t.Errorf("%s %s: %q is not in the catalog", sc.Name, Short(s.Message), k)
					}
				}
				for _, w := range []int{40, 60, 80, 100, 120, 200} {
					out := RenderIn(s, w, es)
					for n, line := range strings.Split(out, "\n") {
						if c := utf8.RuneCountInString(line); c > w {
							t.Errorf("%s %s in Spanish at %d columns: line %d is %d wide: %q", sc.Name, Short(s.Message), w, n+1, c, line)
						}
					}
					screen.WriteString(out)
				}
				mm := MermaidIn(s, es)
				if _, err := parseMermaid(mm); err != nil {
					t.Errorf("%s %s: Spanish Mermaid: %v\n%s", sc.Name, Short(s.Message), err, mm)
				}
				// The comment on its second line stays English.
				screen.WriteString(comment.ReplaceAllString(mm, ""))
			}
		}
	}
	text := identifiers.ReplaceAllString(screen.String(), "")
	for _, leak := range catalog.EnglishIn(text, 6, nil) {
		t.Errorf("a Spanish story shows the English %q (Spanish: %q)", leak[0], leak[1])
	}
	for _, want := range []string{"mensaje 1 de 1", "pipeline outbox", "tomar: lease hasta las", "publicar (intento 1)", "entregar (entrega 1)",
		"duplicado: ignorado, sin segundo efecto", "✗ caída en relay.published: publicado, sin marcar", "reloj +31s", "publicado 2 veces con el mismo id",
		"2 entregas, 1 efecto (su inbox ignoró 1 duplicado)", "1 entrega, 1 efecto", "intentos fallidos", "la retención borra"} {
		if !strings.Contains(screen.String(), want) {
			t.Errorf("no Spanish story says %q", want)
		}
	}
}

// Render is English and RenderIn with no printer is too: the CLI's default
// and the goldens do not change.
func TestRenderIsEnglish(t *testing.T) {
	s := build(t, "crash-after-publish", "", "", "1")
	if RenderIn(s, 120, nil) != Render(s, 120) || RenderIn(s, 120, catalog.For("en")) != Render(s, 120) || MermaidIn(s, nil) != Mermaid(s) {
		t.Error("RenderIn or MermaidIn in English differs from Render or Mermaid")
	}
}
