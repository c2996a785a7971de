package catalog

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
)

// Langs are the languages the catalog holds.
var Langs = []string{"en", "es"}

var cat = build()

func build() *catalog.Builder {
	b := catalog.NewBuilder(catalog.Fallback(language.English))
	for _, m := range messages {
		if err := b.SetString(language.Spanish, m.en, m.es); err != nil {
			panic(fmt.Sprintf("catalog: %q: %v", m.en, err))
		}
	}
	for _, p := range plurals {
		arg := max(p.arg, 1) // which argument is the count (1 = the first)
		if err := b.Set(language.English, p.key, plural.Selectf(arg, "%d", plural.One, p.enOne, plural.Other, p.enOther)); err != nil {
			panic(fmt.Sprintf("catalog: %q: %v", p.key, err))
		}
		if err := b.Set(language.Spanish, p.key, plural.Selectf(arg, "%d", plural.One, p.esOne, plural.Other, p.esOther)); err != nil {
			panic(fmt.Sprintf("catalog: %q: %v", p.key, err))
		}
	}
	return b
}

// Printer prints in lang ("en" or "es"; anything else prints English).
type Printer struct{ p *message.Printer }

// For returns the printer of a language.
func For(lang string) *Printer {
	tag := language.English
	if lang == "es" {
		tag = language.Spanish
	}
	return &Printer{message.NewPrinter(tag, message.Catalog(cat))}
}

// T is a message in the printer's language, formatted with args.
func (p *Printer) T(key string, args ...any) string {
	if p == nil {
		return fmt.Sprintf(key, args...)
	}
	return p.p.Sprintf(key, args...)
}

// Word is a message that takes no arguments (a label, a key's help) in the
// printer's language; key may come from a table, so it is not a format.
func (p *Printer) Word(key string) string {
	if p == nil {
		return key
	}
	return p.p.Sprintf(message.Key(key, key))
}

// Lang is the language the printer speaks ("en", "es"): the catalog says
// "en" in its own language, so a scene's title.es: is found by the printer
// that draws the rest of the screen (nil, as in tests, speaks English).
func (p *Printer) Lang() string { return p.Word("en") }

// Say is T for a key that comes from data (a timeline entry's sentence):
// not a format string the compiler can see.
func (p *Printer) Say(key string, args []any) string {
	if p == nil {
		return fmt.Sprintf(key, args...)
	}
	return p.p.Sprintf(message.Key(key, key), args...)
}

// Translated lists every message whose Spanish differs from its English,
// as (English, Spanish): a screen drawn in Spanish must show none of the
// English.
func Translated() [][2]string {
	var out [][2]string
	for _, m := range messages {
		if m.en != m.es {
			out = append(out, [2]string{m.en, m.es})
		}
	}
	return out
}

// Known reports whether the catalog says key in Spanish: a message whose
// Spanish differs from its English, or a plural.
func Known(key string) bool {
	for _, m := range messages {
		if m.en == key && m.es != m.en {
			return true
		}
	}
	for _, p := range plurals {
		if p.key == key {
			return true
		}
	}
	return false
}

var verbs = regexp.MustCompile(`%[a-z]`)

// EnglishIn lists, as (English probe, Spanish), the messages whose English
// shows in text that should be all Spanish: for each translated message,
// the longest piece between its format verbs, if it is at least least
// bytes, is not in the Spanish too (pipeline, lease), and is not one of
// ignore (SQL identifiers stay as the schema writes them).
func EnglishIn(text string, least int, ignore []string) [][2]string {
	var out [][2]string
	for _, m := range messages {
		if m.en == m.es || len(m.en) < 8 || strings.Contains(m.es, m.en) {
			continue // short words occur inside others
		}
		probe := ""
		for _, part := range verbs.Split(m.en, -1) {
			if part = strings.TrimSpace(part); len(part) > len(probe) {
				probe = part
			}
		}
		if len(probe) < least || strings.Contains(m.es, probe) || slices.Contains(ignore, probe) {
			continue
		}
		if strings.Contains(text, probe) {
			out = append(out, [2]string{probe, m.es})
		}
	}
	return out
}
