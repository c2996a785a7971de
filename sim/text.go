package sim

import "github.com/outboxlab/outboxlab/catalog"

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
func (t Text) English() string { return english.Say(t.Key, t.Args) }

// with gives an entry its sentence: the catalog's, and English in Explain.
func (e Entry) with(t Text) Entry {
	e.Say, e.Explain = &t, t.English()
	return e
}

// In is the sentence in the printer's language.
func (t Text) In(p *catalog.Printer) string { return p.Say(t.Key, t.Args) }
