package story

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/sim"
)

// The actors' own short sentences (engine.Phrase formats) a story reads its
// details from: the engine says them, the timeline keeps them with their
// arguments in Entry.Say.
const (
	fmtDelivery     = "to %s, delivery %d"
	fmtLease        = "%d leased until %s"
	fmtLeaseExpired = "%d leased until %s, %d from expired leases"
	fmtLeaseHeld    = "%d locked, transaction still open while publishing (the wrong way, S8)"
	fmtRetry        = "attempt %d failed, next at %s"
	fmtDeadLetter   = "attempt %d of %d failed: dead-lettered"
	fmtGap          = "aggregate %s: expected version %d, got %d: not applied, NACKed for redelivery"
	fmtBehind       = "aggregate %s: version %d is at or behind %d already applied: rejected to dead letters"
	fmtLateAck      = "delivery %d: ACK too late, already handed out again"
	fmtParked       = "aggregate %s: expected version %d, got %d: parked, applied when version %d arrives"
	// The card provider's answers (S19), as engine says them.
	fmtChargeReplayed = "the provider knew the key: charge %d replayed, nothing charged"
	fmtChargeKeyed    = "card charged: charge %d, Idempotency-Key = the message id"
	fmtChargeNoKey    = "card charged: charge %d, no Idempotency-Key"
)

// args finds the actor's phrase of that format in an entry's sentence and
// returns its arguments. An entry read back from JSON has no sentence, only
// its English Explain: the phrase is looked for there.
func args(e sim.Entry, format string) ([]string, bool) {
	if e.Say != nil {
		if p, ok := findPhrase(reflect.ValueOf(*e.Say), format); ok {
			out := make([]string, len(p.Args))
			for i, a := range p.Args {
				out[i] = fmt.Sprint(a)
			}
			return out, true
		}
		return nil, false
	}
	m := phraseRegexp(format).FindStringSubmatch(e.Explain)
	if m == nil {
		return nil, false
	}
	return m[1:], true
}

var (
	phraseType = reflect.TypeFor[engine.Phrase]()
	textType   = reflect.TypeFor[sim.Text]()
)

// findPhrase walks a sentence's arguments (sentences, lists of them,
// phrases) for the phrase.
func findPhrase(v reflect.Value, format string) (engine.Phrase, bool) {
	switch {
	case !v.IsValid():
		return engine.Phrase{}, false
	case v.Kind() == reflect.Interface:
		return findPhrase(v.Elem(), format)
	case v.Type() == phraseType:
		p := v.Interface().(engine.Phrase)
		if p.Format == format {
			return p, true
		}
		return findPhrase(reflect.ValueOf(p.Args), format)
	case v.Type() == textType:
		return findPhrase(reflect.ValueOf(v.Interface().(sim.Text).Args), format)
	case v.Kind() == reflect.Slice:
		for i := range v.Len() {
			if p, ok := findPhrase(v.Index(i), format); ok {
				return p, true
			}
		}
	}
	return engine.Phrase{}, false
}

// phraseRegexp matches a phrase's English: %d a number, %s a word.
func phraseRegexp(format string) *regexp.Regexp {
	q := regexp.QuoteMeta(format)
	q = strings.ReplaceAll(q, "%d", `(\d+)`)
	q = strings.ReplaceAll(q, "%s", `([^\s,()]+)`)
	return regexp.MustCompile(q)
}

// said is an entry's sentence without its actor's name in front: "api
// answered 201" says "answered 201".
func said(e sim.Entry) string { return strip(e.Explain, e.Actor) }

// strip leaves an actor's name off the front of a sentence.
func strip(s, actor string) string {
	for _, p := range []string{actor + "'s ", actor + " "} {
		if strings.HasPrefix(s, p) {
			return s[len(p):]
		}
	}
	return s
}

// clause is a sentence up to its first colon or semicolon: the part that
// says what happened, not what it means.
func clause(s string) string {
	if i := strings.IndexAny(s, ":;"); i > 0 {
		return s[:i]
	}
	return s
}

// clockTime shortens 12:00:30.000 to 12:00:30.
func clockTime(s string) string { return strings.TrimSuffix(s, ".000") }
