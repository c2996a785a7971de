package lessons

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// The core path comes first, in the order the course teaches it.
var coursePath = []string{"dual-write", "phantom", "outbox", "relay", "duplicate", "inbox", "race",
	"backoff", "poison", "lease", "order", "consumers", "trace", "chaos", "commit-order", "cdc", "effects", "lanes", "zombie", "dedup"}

func TestBuiltinLessonsLoad(t *testing.T) {
	for _, lang := range Langs {
		all, err := Load(lang)
		if err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		var names []string
		for _, l := range all {
			names = append(names, l.Name)
			if l.Lang != lang {
				t.Errorf("%s: Lang %q", l.File, l.Lang)
			}
			if n := len(l.Quiz); n < 2 || n > 3 {
				t.Errorf("%s: %d questions", l.File, n)
			}
			if len(strings.Fields(l.Name)) != 1 || len(l.Name) > 12 {
				t.Errorf("%s: name %q is not short and memorable", l.File, l.Name)
			}
		}
		if !slices.Equal(names, coursePath) {
			t.Errorf("%s lessons in order: %v, want %v", lang, names, coursePath)
		}
	}
	if _, err := Load("fr"); err == nil {
		t.Error("Load(fr) did not fail")
	}
}

// Both languages have the same lessons, steps, checks, solutions and
// settings, and the same right answers; only the words differ.
func TestLanguagesMatch(t *testing.T) {
	en, err := Load("en")
	if err != nil {
		t.Fatal(err)
	}
	es, err := Load("es")
	if err != nil {
		t.Fatal(err)
	}
	if len(en) != len(es) {
		t.Fatalf("en has %d lessons, es %d", len(en), len(es))
	}
	for i, a := range en {
		b := es[i]
		if a.Name != b.Name || a.Order != b.Order || a.Scene != b.Scene || a.Variant != b.Variant || a.Teaches != b.Teaches || a.Settings != b.Settings {
			t.Errorf("lesson %d: en %s (order %d, scene %s/%s, %s) vs es %s (order %d, scene %s/%s, %s)",
				i, a.Name, a.Order, a.Scene, a.Variant, a.Teaches, b.Name, b.Order, b.Scene, b.Variant, b.Teaches)
			continue
		}
		if len(a.Steps) != len(b.Steps) {
			t.Errorf("%s: en has %d steps, es %d", a.Name, len(a.Steps), len(b.Steps))
			continue
		}
		for j := range a.Steps {
			sa, sb := a.Steps[j], b.Steps[j]
			if sa.Variant != sb.Variant || sa.Fresh != sb.Fresh || sa.Settings != sb.Settings {
				t.Errorf("%s step %d: variant %q/%q", a.Name, j+1, sa.Variant, sb.Variant)
			}
			if sa.SolutionText() != sb.SolutionText() {
				t.Errorf("%s step %d: solutions differ:\n en %s\n es %s", a.Name, j+1, sa.SolutionText(), sb.SolutionText())
			}
			var ca, cb []string
			for _, c := range sa.Checks {
				ca = append(ca, c.Source)
			}
			for _, c := range sb.Checks {
				cb = append(cb, c.Source)
			}
			if !slices.Equal(ca, cb) {
				t.Errorf("%s step %d: checks differ:\n en %q\n es %q", a.Name, j+1, ca, cb)
			}
			for _, txt := range []string{sb.Title, sb.Read, sb.Task, sb.Hint, sb.Why} {
				if txt == "" {
					t.Errorf("%s step %d: empty text in es", a.Name, j+1)
				}
			}
		}
		if len(a.Quiz) != len(b.Quiz) {
			t.Errorf("%s: en has %d questions, es %d", a.Name, len(a.Quiz), len(b.Quiz))
			continue
		}
		for j := range a.Quiz {
			qa, qb := a.Quiz[j], b.Quiz[j]
			if len(qa.Choices) != len(qb.Choices) || qa.Answer() != qb.Answer() {
				t.Errorf("%s question %d: en %d choices (answer %d), es %d (answer %d)", a.Name, j+1, len(qa.Choices), qa.Answer(), len(qb.Choices), qb.Answer())
			}
		}
	}
}

// A well-formed lesson, the base the malformed cases break.
const good = `---
title: T
summary: S
teaches: S13
order: 1
scene: crash-after-publish
---
Intro.

step: One
Read this.

task: Do it.
check: oracle: publishes >= 1
hint: A hint.
why: Because.
solution: request; drain

quiz:
question: Q1?
answer: A.
  because: B.
option: C.
  because: D.
question: Q2?
option: C.
  because: D.
answer: A.
  because: B.
`

func TestParseGood(t *testing.T) {
	l, err := Parse("x", "x.md", "en", strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if l.Title != "T" || l.Intro != "Intro." || len(l.Steps) != 1 || len(l.Quiz) != 2 {
		t.Fatalf("parsed %+v", l)
	}
	st := l.Steps[0]
	if st.Read != "Read this." || st.Task != "Do it." || !st.Fresh || st.SolutionText() != "request; drain" {
		t.Errorf("step %+v", st)
	}
	if c := st.Checks[0]; c.Kind != "oracle" || c.Pipeline != "outbox" || c.Figure != "publishes" || c.Op != ">=" || c.Value != 1 || c.Line != 14 {
		t.Errorf("check %+v", c)
	}
	if l.Quiz[0].Answer() != 0 || l.Quiz[1].Answer() != 1 || l.Quiz[0].Choices[0].Because != "B." {
		t.Errorf("quiz %+v", l.Quiz)
	}
}

// replace swaps one line of the good lesson (1-based) for text ("" drops it).
func replace(n int, text string) string {
	lines := strings.Split(good, "\n")
	if text == "" {
		lines = slices.Delete(lines, n-1, n)
	} else {
		lines[n-1] = text
	}
	return strings.Join(lines, "\n")
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, src string
		line      int
		reason    string
	}{
		{"no front matter", "title: T\n", 1, "starts with front matter"},
		{"unknown header", replace(3, "colour: blue"), 3, "unknown front matter"},
		{"unknown scene", replace(6, "scene: nope"), 6, `unknown scene "nope"`},
		{"missing title", replace(2, ""), 6, "lacks title:"},
		{"bad order", replace(5, "order: first"), 5, "not a positive whole number"},
		{"unclosed front matter", "---\ntitle: T\n", 2, "never ends"},
		{"unknown check kind", replace(14, "check: keys: pressed c"), 14, `unknown kind "keys"`},
		{"unknown figure", replace(14, "check: oracle: outbox duplicates >= 1"), 14, `unknown figure "duplicates"`},
		{"bad operator", replace(14, "check: oracle: publishes => 1"), 14, `operator "=>"`},
		{"not a number", replace(14, "check: oracle: publishes >= one"), 14, "not a whole number"},
		{"pipeline not running", replace(14, "check: oracle: naive publishes >= 1"), 14, "pipeline naive does not run here"},
		{"unknown actor", replace(14, "check: timeline: relay-9 crashed at relay.published"), 14, `no actor "relay-9"`},
		{"actor not in settings", replace(14, "check: timeline: relay-2 crashed"), 14, `no actor "relay-2" here`},
		{"unknown checkpoint", replace(14, "check: timeline: relay-1 crashed at relay.publish"), 14, `unknown checkpoint "relay.publish"`},
		{"checkpoint of another actor", replace(14, "check: timeline: relay-1 reached consumer.acked"), 14, "relay-1 never reaches consumer.acked"},
		{"unknown event", replace(14, "check: timeline: relay-1 exploded"), 14, `unknown event "exploded"`},
		{"unknown table", replace(14, "check: table: outbox payment count == 1"), 14, `unknown table "payment"`},
		{"table without count", replace(14, "check: table: payments == 1"), 14, "TABLE count OP N"},
		{"unknown state", replace(14, "check: actor: relay-1 is asleep"), 14, `unknown state "asleep"`},
		{"bad solution command", replace(17, "solution: request; explode relay-1"), 17, `"explode relay-1": unknown command "explode"`},
		{"bad solution checkpoint", replace(17, "solution: crash relay-1 at relay.publish"), 17, `unknown checkpoint "relay.publish"`},
		{"solution actor not running", replace(17, "solution: crash relay-2 at relay.published"), 17, "no actor relay-2 here"},
		{"no check", replace(14, ""), 10, "no check: line"},
		{"no solution", replace(17, ""), 10, "no solution: line"},
		{"no reading", replace(11, ""), 10, "nothing to read"},
		{"text after task", replace(15, "Some more text."), 15, "reading text after"},
		{"task twice", replace(15, "task: Again."), 15, "task: given twice"},
		{"unknown variant", replace(12, "variant: sideways"), 12, `no variant "sideways"`},
		{"task outside a step", replace(10, "task: Early."), 10, "outside a step"},
		{"no because", replace(22, ""), 22, "no because: line"},
		{"two answers", replace(23, "answer: C."), 20, "2 answer: lines"},
		{"no right answer", replace(21, "option: A."), 20, "0 answer: lines"},
		{"one question", good[:strings.Index(good, "question: Q2?")], 24, "want two or three"},
		{"no quiz", good[:strings.Index(good, "quiz:")], 18, "no quiz"},
		{"step after quiz", good + "step: Late\n", 30, "step: after quiz:"},
		{"text in quiz", good + "Stray text.\n", 30, "text in the quiz"},
		{"chaos check without a run", replace(14, "check: chaos: runs == 200"), 14, "belongs in a step with a chaos: N line"},
		{"unknown chaos figure", replace(14, "check: chaos: lost == 0"), 14, "FIGURE one of runs"},
		{"chaos count not a number", replace(15, "chaos: many"), 15, "number of schedules"},
		{"chaos step with commands", strings.Replace(replace(14, "check: chaos: runs == 200"), "task: Do it.", "task: Do it.\nchaos: 200", 1), 18, "write solution: chaos"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("x", "lessons/en/x.md", "en", strings.NewReader(c.src))
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("got %v, want a *lessons.Error", err)
			}
			if le.File != "lessons/en/x.md" || le.Line != c.line || !strings.Contains(le.Reason, c.reason) {
				t.Errorf("got %q, want lessons/en/x.md:%d: …%s…", err, c.line, c.reason)
			}
		})
	}
}

// LoadFS reports every malformed file, each with file:line.
func TestLoadFSReportsEveryFile(t *testing.T) {
	fsys := fstest.MapFS{
		"l/a.md": {Data: []byte(good)},
		"l/b.md": {Data: []byte(replace(14, "check: oracle: nope >= 1"))},
		"l/c.md": {Data: []byte(replace(17, "solution: explode"))},
	}
	_, err := LoadFS(fsys, "l", "mine", "en")
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"mine/b.md:14: ", "mine/c.md:17: "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	fsys["l/b.md"] = &fstest.MapFile{Data: []byte(good)}
	delete(fsys, "l/c.md")
	if _, err := LoadFS(fsys, "l", "mine", "en"); err == nil || !strings.Contains(err.Error(), "order 1 is also") {
		t.Errorf("two lessons with one order: %v", err)
	}
}

func TestLang(t *testing.T) {
	cases := []struct{ lang, lcAll, want string }{
		{"", "", "en"},
		{"es_ES.UTF-8", "", "es"},
		{"es_MX", "", "es"},
		{"en_US.UTF-8", "es_AR.UTF-8", "es"},
		{"es_ES.UTF-8", "C", "en"},
		{"C", "", "en"},
		{"fr_FR.UTF-8", "", "en"},
		{"ES", "", "es"},
	}
	for _, c := range cases {
		if got := Lang(c.lang, c.lcAll); got != c.want {
			t.Errorf("Lang(%q, %q) = %q, want %q", c.lang, c.lcAll, got, c.want)
		}
	}
	if _, err := ParseLang("de"); err == nil {
		t.Error("ParseLang(de) did not fail")
	}
}

// A hint adds words to the keys the TUI derives from the solution; it never
// spells the solution's scene commands (`crash relay-1 at relay.published`).
func TestHintsAreWordsNotCommands(t *testing.T) {
	for _, lang := range Langs {
		all, err := Load(lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range all {
			for i, st := range l.Steps {
				for _, s := range st.Solution {
					for _, span := range []string{"`" + s.String() + "`", "`" + s.Cmd + "`", "`" + s.Cmd + " "} {
						if strings.Contains(st.Hint, span) {
							t.Errorf("%s step %d: the hint spells the command %s: %s", l.File, i+1, span, st.Hint)
						}
					}
				}
			}
		}
	}
}
