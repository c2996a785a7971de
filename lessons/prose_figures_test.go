package lessons

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
)

// proseFigure is a figure a lesson's text quotes with a number: "pending 1",
// "`published == 2`", "3 deliveries", "eventos perdidos 1".
type proseFigure struct {
	Figure string // the oracle's name (scenes.Figures)
	Value  int64
	Quote  string // as written
}

// figureWords are the words a text may call a figure by besides its name
// (lost_events) and its label on screen in the lesson's language (lost
// events, eventos perdidos). Each is matched as a whole word,
// case-insensitively.
var figureWords = map[string]map[string][]string{
	"en": {
		"duplicates_ignored": {"duplicates ignored"},
	},
	"es": {
		"duplicates_ignored": {"duplicados ignorados"},
	},
}

// figureSingulars are the singulars of those words, read only after their
// number ("1 pending", "1 evento perdido"): before it, "delivery 2" is the
// second delivery, not a count.
var figureSingulars = map[string]map[string][]string{
	"en": {
		"duplicate_effects": {"duplicate effect"},
		"lost_events":       {"lost event"},
		"crashes":           {"crash"},
		"deliveries":        {"delivery"},
		"publishes":         {"publish"},
		"effects":           {"effect"},
	},
	"es": {
		"pending":            {"pendiente"},
		"published":          {"publicada"},
		"publishes":          {"publicación"},
		"deliveries":         {"entrega"},
		"duplicates_ignored": {"duplicado ignorado"},
		"duplicate_effects":  {"efecto duplicado"},
		"lost_events":        {"evento perdido"},
		"effects":            {"efecto"},
		"crashes":            {"caída"},
	},
}

var figurePatterns = map[string][]*figurePattern{}

type figurePattern struct {
	figure string
	after  *regexp.Regexp // WORD [==|is|es|:|stays at] N
	before *regexp.Regexp // N WORD
}

// patterns compiles, once per language, the two forms a figure is quoted
// in. Longer words come first, so "lost events" is read before "events".
func patterns(lang string) []*figurePattern {
	if ps, ok := figurePatterns[lang]; ok {
		return ps
	}
	w := catalog.For(lang)
	var out []*figurePattern
	for _, f := range scenes.FigureTable {
		words := []string{f.Name, strings.ReplaceAll(f.Name, "_", " "), f.Label, w.Word(f.Label)}
		words = append(words, figureWords[lang][f.Name]...)
		name, either := alternatives(words), alternatives(append(words, figureSingulars[lang][f.Name]...))
		out = append(out, &figurePattern{
			figure: f.Name,
			after:  regexp.MustCompile(`(?i)(?:^|[^\pL_.])` + name + "`?" + `\s*(?:==|=|is|es|:|stays? at|se queda(?:n)? en)?\s*` + "`?" + `(\d+)(?:[^\pL\pN%,.]|[.,](?:\D|$)|$)`),
			before: regexp.MustCompile(`(?i)(?:^|[^\pL\pN_.,-])(\d+)\s+` + either + `(?:[^\pL_]|$)`),
		})
	}
	figurePatterns[lang] = out
	return out
}

// alternatives is a regexp group of words, the longest first.
func alternatives(words []string) string {
	words = slices.Clone(words)
	slices.SortFunc(words, func(a, b string) int { return len(b) - len(a) })
	words = slices.Compact(words)
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	return `(?:` + strings.Join(words, "|") + `)`
}

// quotedFigures finds the figures a text quotes with a number, outside code
// blocks (indented SQL).
func quotedFigures(lang, text string) []proseFigure {
	text = codeBlock.ReplaceAllString(text, "")
	type found struct {
		proseFigure
		lo, hi int
		after  bool // WORD N, read before N WORD: "published 0  publishes 1"
	}
	var all []found
	for _, p := range patterns(lang) {
		for k, re := range []*regexp.Regexp{p.after, p.before} {
			for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
				v, err := strconv.ParseInt(text[m[2]:m[3]], 10, 64)
				if err != nil {
					continue
				}
				// The span from the first to the last letter or digit: the
				// characters around it only bound the words.
				lo, hi := m[0], m[1]
				for lo < hi && !isWordByte(text[lo]) {
					lo++
				}
				for hi > lo && !isWordByte(text[hi-1]) {
					hi--
				}
				q := strings.Join(strings.Fields(text[lo:hi]), " ")
				all = append(all, found{proseFigure{Figure: p.figure, Value: v, Quote: q}, lo, hi, k == 0})
			}
		}
	}
	// A span is read once: as WORD N where it can be, then by its longest
	// reading ("phantom effects 0" is phantom_effects, not effects).
	slices.SortStableFunc(all, func(a, b found) int {
		if a.after != b.after {
			if a.after {
				return -1
			}
			return 1
		}
		return (b.hi - b.lo) - (a.hi - a.lo)
	})
	taken := make([]bool, len(text))
	var out []proseFigure
	for _, f := range all {
		if slices.Contains(taken[f.lo:f.hi], true) {
			continue
		}
		for i := f.lo; i < f.hi; i++ {
			taken[i] = true
		}
		out = append(out, f.proseFigure)
	}
	return out
}

// isWordByte is a letter, digit, underscore or a byte of a multi-byte rune
// (ñ, é: the ends of a Spanish word).
func isWordByte(b byte) bool {
	return b >= 0x80 || b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// stepProse is what a step gives the learner to read, by the part's name:
// the first step's includes the lesson's introduction, which tells what
// the first step will show.
func stepProse(l *Lesson, i int) [][2]string {
	st := &l.Steps[i]
	out := [][2]string{{"text", st.Read}, {"task", st.Task}, {"hint", st.Hint}, {"why", st.Why}}
	if i == 0 {
		out = append([][2]string{{"introduction", l.Intro}}, out...)
	}
	return out
}

// figureMismatches lists the figures a step's prose quotes that no running
// pipeline's oracle shows now, at the moment the step passes. With two
// pipelines (compare mode) a figure may be either's.
func figureMismatches(l *Lesson, i int, oracles []sim.Oracle) []string {
	st := &l.Steps[i]
	var out []string
	for _, part := range stepProse(l, i) {
		for _, q := range quotedFigures(l.Lang, part[1]) {
			var got []string
			ok := false
			for _, o := range oracles {
				v, err := o.Figure(q.Figure)
				if err != nil {
					continue
				}
				ok = ok || v == q.Value
				got = append(got, fmt.Sprintf("%s %d", o.Pipeline, v))
			}
			if !ok {
				out = append(out, fmt.Sprintf("%s step %d %q, its %s says %q (%s %d) but the oracle shows %s",
					l.File, i+1, st.Title, part[0], q.Quote, q.Figure, q.Value, strings.Join(got, ", ")))
			}
		}
	}
	return out
}

// The reader finds what the lessons write, and nothing in ordinary numbers.
func TestQuotedFigures(t *testing.T) {
	cases := []struct {
		lang, text string
		want       []string
	}{
		{"en", `The pipeline's "1 pending" is that row.`, []string{"pending 1"}},
		{"en", "says pending 1, because it is not published, and lost events 1", []string{"pending 1", "lost_events 1"}},
		{"en", "check `published == 2` and `lost_events == 0`.", []string{"published 2", "lost_events 0"}},
		{"en", "the broker made 3 deliveries; publishes is 2.", []string{"publishes 2", "deliveries 3"}},
		{"en", "duplicates_ignored 2, duplicate_effects 0: one effect.", []string{"duplicates_ignored 2", "duplicate_effects 0"}},
		{"en", "advance the clock 31 s and send 2 payments.", []string{"payments 2"}},
		{"en", "published 0  publishes 1", []string{"published 0", "publishes 1"}},
		{"en", "a lease of 30 s, attempt 12, 95% of runs, 2.5 effects", nil},
		{"en", "relay-1 published it; relay-2 published nothing", nil},
		{"en", "Watch what the inbox says of delivery 2.", nil},
		{"en", "The outbox's phantom effects stay at 0.", []string{"phantom_effects 0"}},
		{"en", "1 lost event, 1 crash", []string{"lost_events 1", "crashes 1"}},
		{"es", "pendientes 1, porque no está publicada, y eventos perdidos 1", []string{"pending 1", "lost_events 1"}},
		{"es", "El «1 pendiente» del pipeline es esa fila; publicaciones es 2.", []string{"pending 1", "publishes 2"}},
		{"es", "duplicados ignorados 2, efectos duplicados 0: un efecto.", []string{"duplicates_ignored 2", "duplicate_effects 0"}},
		{"es", "    SELECT 1 FROM outbox_messages -- pending 3", nil},
	}
	for _, c := range cases {
		var got []string
		for _, q := range quotedFigures(c.lang, c.text) {
			got = append(got, fmt.Sprintf("%s %d", q.Figure, q.Value))
		}
		slices.Sort(got)
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s %q: read %q, want %q", c.lang, c.text, got, want)
		}
	}
}
