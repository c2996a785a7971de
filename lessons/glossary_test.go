package lessons

import (
	"regexp"
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/catalog"
)

// codeBlock is a Markdown line indented as code (SQL, the backoff formula):
// the schema's words, not prose.
var codeBlock = regexp.MustCompile(`(?m)^ {4}.*$`)

// prose is every text of a lesson a learner reads, without its check and
// solution lines (the check language is English in every lesson) and
// without code.
func prose(l *Lesson) []string {
	out := []string{l.Title, l.Summary, l.Intro, l.QuizTitle}
	for _, st := range l.Steps {
		out = append(out, st.Title, st.Read, st.Task, st.Hint, st.Why)
	}
	for _, q := range l.Quiz {
		out = append(out, q.Text)
		for _, c := range q.Choices {
			out = append(out, c.Text, c.Because)
		}
	}
	for i, s := range out {
		out[i] = codeBlock.ReplaceAllString(s, "")
	}
	return out
}

// Every lesson says each word of the catalog's glossary the way the screen
// says it: "marca", never "marcador"; "el inbox", never "la Inbox".
func TestLessonsKeepTheGlossary(t *testing.T) {
	for _, lang := range Langs {
		all, err := Load(lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range all {
			for _, text := range prose(l) {
				for _, bad := range catalog.Misused(lang, text) {
					around := strings.Join(strings.Fields(text[max(0, bad.At-40):min(len(text), bad.At+len(bad.Found)+30)]), " ")
					t.Errorf("%s: %q in «…%s…»: the glossary says %q", l.File, bad.Found, strings.ToValidUTF8(around, ""), bad.Want)
				}
			}
		}
	}
}

// One heading for every quiz of a language.
func TestOneQuizHeading(t *testing.T) {
	for _, lang := range Langs {
		all, err := Load(lang)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string][]string{}
		for _, l := range all {
			seen[l.QuizTitle] = append(seen[l.QuizTitle], l.Name)
		}
		if len(seen) != 1 {
			t.Errorf("%s: %d quiz headings: %v", lang, len(seen), seen)
		}
	}
}
