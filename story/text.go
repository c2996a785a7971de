package story

import (
	"strings"

	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/sim"
)

// Text is a label or a sentence of a story as the message catalog holds it:
// its English format (the catalog's key) and its arguments, said in a
// language by In. A story keeps texts, not strings, so that one Build is
// drawn in whatever language the reader has; String is the English.
type Text struct {
	Key  string
	Args []any
}

// say is a text of the catalog.
func say(key string, args ...any) Text { return Text{Key: key, Args: args} }

// verbatim is a word the story takes from the timeline as it is (an actor's
// kind, a checkpoint, a statement): the same in every language.
func verbatim(s string) Text { return say("%s", s) }

var english = catalog.For("en")

// String is the text in English.
func (t Text) String() string { return t.In(english) }

// In is the text in the printer's language (English for nil). An argument
// that is a Text, a list of texts (said with commas between), a timeline
// sentence or a part of one is said in that language too.
func (t Text) In(p *catalog.Printer) string {
	if t.Key == "" {
		return ""
	}
	if p == nil {
		p = english
	}
	args := make([]any, len(t.Args))
	for i, a := range t.Args {
		switch v := a.(type) {
		case Text:
			args[i] = v.In(p)
		case []Text:
			parts := make([]string, len(v))
			for j, c := range v {
				parts[j] = c.In(p)
			}
			args[i] = strings.Join(parts, ", ")
		case told:
			args[i] = v.in(p)
		default:
			args[i] = a
		}
	}
	return p.Say(t.Key, args)
}

// told is a part of a timeline entry's own sentence, in the language the
// story is said in: the clause that says what happened (its actor's name
// left off), or, with rest, what follows its first colon. An entry read
// back from JSON has only its English Explain, which is said then.
type told struct {
	e    sim.Entry
	rest bool
}

// clauseOf is the clause of an entry's sentence that says what happened.
func clauseOf(e sim.Entry) Text { return say("%s", told{e: e}) }

func (c told) in(p *catalog.Printer) string {
	s := c.e.Explain
	if c.e.Say != nil {
		s = c.e.Say.In(p)
	}
	s = strip(s, c.e.Actor)
	if c.rest {
		return strings.TrimSpace(s[strings.Index(s, ":")+1:])
	}
	return clause(s)
}
