package sim

import (
	"strings"

	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/engine"
)

// Text is a sentence of the message catalog with its arguments. A timeline
// entry keeps it beside its English Explain, so a screen can say it in the
// learner's language while `run` and its JSON stay as they are.
type Text struct {
	Key  string
	Args []any
}

func text(key string, args ...any) Text { return Text{Key: key, Args: args} }

var english = catalog.For("en")

// English is the sentence in English, as Explain holds it.
func (t Text) English() string { return t.In(english) }

// with gives an entry its sentence: the catalog's, and English in Explain.
func (e Entry) with(t Text) Entry {
	e.Say, e.Explain = &t, t.English()
	return e
}

// In is the sentence in the printer's language. An argument that is a
// sentence itself (or a list of them, joined by "; ") is said in it too.
func (t Text) In(p *catalog.Printer) string {
	if t.Key == "" {
		return ""
	}
	args := make([]any, len(t.Args))
	for i, a := range t.Args {
		switch v := a.(type) {
		case Text:
			args[i] = v.In(p)
		case list:
			parts := make([]string, len(v))
			for j, c := range v {
				parts[j] = c.In(p)
			}
			args[i] = strings.Join(parts, ", ")
		case engine.Phrase: // an actor's own sentence
			args[i] = Text{Key: v.Format, Args: v.Args}.In(p)
		case []Text:
			parts := make([]string, len(v))
			for j, c := range v {
				parts[j] = c.In(p)
			}
			args[i] = strings.Join(parts, "; ")
		default:
			args[i] = a
		}
	}
	return p.Say(t.Key, args)
}

// list is sentences said one after another with commas (a []Text argument
// is joined by "; ").
type list []Text
