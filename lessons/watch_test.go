package lessons

import (
	"fmt"
	"regexp"
	"testing"
)

// paneWords are the ways a lesson's text points the learner at a data
// pane, per language: its title on screen (Guarantees, Cronología), "the
// timeline", "the Guarantees pane", a table's columns. A step that says one
// of them must watch that pane, or the screen would not show it.
var paneWords = map[string]map[Pane]*regexp.Regexp{
	"en": {
		PaneGuarantees: regexp.MustCompile(`\bGuarantees\b|(?i:\bguarantees pane\b|\bread the guarantees\b)`),
		PaneTimeline:   regexp.MustCompile(`(?i)\bthe timeline\b|\bTimeline pane\b`),
		PaneTables:     regexp.MustCompile(`(?i)\b(?:look at|watch|compare)\b[^.]{0,40}\bcolumns\b|\btables? in view\b|\bTables pane\b`),
		PaneMetrics:    regexp.MustCompile(`\bMetrics\b|(?i:\bmetrics pane\b)`),
	},
	"es": {
		PaneGuarantees: regexp.MustCompile(`Garantías|(?i:panel de garantías|\blas garantías\b)`),
		PaneTimeline:   regexp.MustCompile(`(?i)\bla cronología\b|línea de tiempo|panel cronología`),
		PaneTables:     regexp.MustCompile(`(?i)\b(?:mira|fíjate en|compara)\b[^.]{0,40}\bcolumnas\b|a la vista las tablas|panel tablas`),
		PaneMetrics:    regexp.MustCompile(`Métricas|(?i:panel de métricas)`),
	},
}

// outboxColumns name a column of outbox_messages the way ui's
// named_columns.go reads it (the screen then draws the tables pane, and its
// clipping test wants the column whole): a step that names one reads the
// tables pane.
var outboxColumns = regexp.MustCompile("\\bseq\\b|\\batt\\b|\\block (and|y) lease|\\block (change|cambia)|\\block_id\\b|\\blocked_until\\b|\\blease until\\b|`next attempt`|\\bnext attempt in\\b|\\bnext_attempt_at\\b|\\bdead column|\\bcolumna dead\\b|\\bdead_lettered_at\\b|\\blast_error\\b")

// panesNamed lists the panes a text points at.
func panesNamed(lang, text string) []Pane {
	text = codeBlock.ReplaceAllString(text, "")
	var out []Pane
	for _, p := range Panes {
		if paneWords[lang][p].MatchString(text) || p == PaneTables && outboxColumns.MatchString(text) {
			out = append(out, p)
		}
	}
	return out
}

// Every step names the pane it asks the learner to read (the screen shows
// that one at every size), the same in both languages; a step whose text
// points at a pane watches that pane.
func TestEveryStepWatchesAPane(t *testing.T) {
	en, err := Load("en")
	if err != nil {
		t.Fatal(err)
	}
	es, err := Load("es")
	if err != nil {
		t.Fatal(err)
	}
	for _, all := range [][]*Lesson{en, es} {
		for _, l := range all {
			for i := range l.Steps {
				st := &l.Steps[i]
				if st.Watch == PaneNone {
					t.Errorf("%s step %d %q: no watch: line (one of %v)", l.File, i+1, st.Title, Panes)
					continue
				}
				for _, part := range stepProse(l, i) {
					for _, p := range panesNamed(l.Lang, part[1]) {
						if p != st.Watch {
							t.Errorf("%s step %d %q: its %s points at the %s pane, but the step watches %s", l.File, i+1, st.Title, part[0], p, st.Watch)
						}
					}
				}
			}
		}
	}
	for i, a := range en {
		if i >= len(es) || len(es[i].Steps) != len(a.Steps) {
			continue // TestLanguagesMatch says how they differ
		}
		for j := range a.Steps {
			if wa, wb := a.Steps[j].Watch, es[i].Steps[j].Watch; wa != wb {
				t.Errorf("%s step %d: en watches %q, es %q", a.Name, j+1, wa, wb)
			}
		}
	}
}

// The pane words find what the lessons write.
func TestPanesNamed(t *testing.T) {
	cases := []struct {
		lang, text string
		want       string
	}{
		{"en", "Watch slot WAL in the Guarantees pane.", "[guarantees]"},
		{"en", "(the timeline says so)", "[timeline]"},
		{"en", "Look at the lock and lease columns of `outbox_messages`.", "[tables]"},
		{"en", "the first line of the Metrics pane", "[metrics]"},
		{"en", "the guarantees hold; the metric that tells", "[]"},
		{"en", "it even fits the inbox's `uuid` column; no attempts column", "[]"},
		{"en", "the claim skips rows whose `locked_until` is in the future", "[tables]"},
		{"es", "Mira att y next attempt en outbox_messages", "[tables]"},
		{"es", "Mira el WAL del slot en el panel de garantías.", "[guarantees]"},
		{"es", "Lee en la cronología las tomas; la línea de tiempo", "[timeline]"},
		{"es", "Ten a la vista las tablas `payments` y `outbox_messages`.", "[tables]"},
		{"es", "la primera línea del panel Métricas", "[metrics]"},
		{"es", "Esa es la garantía, no la entrega.", "[]"},
	}
	for _, c := range cases {
		if got := fmt.Sprint(panesNamed(c.lang, c.text)); got != c.want {
			t.Errorf("%s %q: %s, want %s", c.lang, c.text, got, c.want)
		}
	}
}
