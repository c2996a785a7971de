package catalog

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Term is one word of the domain as each language writes it, with the
// variants that must not appear: the catalog and the lessons say a thing
// one way, so a learner never wonders whether "marca" and "marcador", or
// "Inbox" and "inbox", are two things.
type Term struct {
	Name string // the concept, in English
	En   string // how English writes it
	Es   string // how Spanish writes it
	// Lower: the word is a common noun, lower case except where a sentence
	// begins ("el outbox", never "la Outbox" mid-sentence).
	Lower bool
	// RejectEn and RejectEs are the variants each language must not use:
	// regular expressions matched as whole words, case-sensitive unless
	// they say (?i).
	RejectEn, RejectEs []string
	Why                string // why this form, for the next writer
}

// Glossary is the one table of the domain's words. Spanish keeps an English
// term where Spanish-speaking engineers say it in English (outbox, inbox,
// relay, broker, lease, ACK, dead letter, checkpoint, worker, payload) and
// writes Spanish everywhere else.
var Glossary = []Term{
	{Name: "outbox", En: "outbox", Es: "outbox", Lower: true,
		RejectEs: []string{`(?i:(?:la|una|las|esta|esa) outbox)`, `Outbox transaccional`, `Transactional Outbox`},
		Why:      "the pattern's name, said in English; masculine (el outbox, su fila del outbox) as the screen already wrote it"},
	{Name: "inbox", En: "inbox", Es: "inbox", Lower: true,
		RejectEs: []string{`(?i:(?:la|una|las|esta|esa) inbox)`},
		Why:      "as outbox: el inbox, masculine, lower case"},
	{Name: "relay", En: "relay", Es: "relay", Lower: true,
		RejectEs: []string{`reenviador(es)?`, `(?i:(?:la|una) relay)`},
		Why:      "the actor's name on screen (relay-1), so the word stays"},
	{Name: "lease", En: "lease", Es: "lease", Lower: true,
		RejectEs: []string{`arrendamiento`, `concesión`, `(?i:(?:la|una) lease)`},
		Why:      "said in English; el lease, los leases, en lease"},
	{Name: "broker", En: "broker", Es: "broker", Lower: true,
		RejectEs: []string{`(?i:la broker)`, `intermediario`}},
	{Name: "ACK", En: "ACK", Es: "ACK",
		RejectEs: []string{`ack`, `acks`, `Ack`, `acuse`},
		Why:      "the consumer's acknowledgement, upper case as a protocol word (hacer ACK, sin ACK); AckWait is JetStream's setting and stays"},
	{Name: "ack timeout", En: "ack timeout", Es: "plazo de ACK",
		RejectEs: []string{`ack timeout`, `timeout`},
		Why:      "Spanish says plazo; the English half of «tras el ack timeout» read as a leak"},
	{Name: "dead letter", En: "dead letter", Es: "dead letter",
		RejectEs: []string{`dead letters`, `dead-letter`, `(?i:mensajes muertos)`, `carta muerta`, `(?i:(?:un|una) dead letter)`},
		Why:      "kept in English as an invariable state: en dead letter, a dead letter, desde dead letter; never a plural noun"},
	{Name: "pending", En: "pending", Es: "pendiente",
		RejectEs: []string{`pending`, `en cola de publicar`}},
	{Name: "lost", En: "lost", Es: "perdido",
		RejectEs: []string{`extraviad[oa]s?`, `lost`}},
	{Name: "crash", En: "crash", Es: "caída / caerse",
		RejectEs: []string{`tumba`, `tumbar`, `tumbad[oa]s?`, `tumbarlo`, `crash`, `crashea\w*`},
		Why:      "se cae, se cayó, una caída; the key is «c hacer caer», as the lessons say «haz que caiga»"},
	{Name: "stall", En: "stall", Es: "congelar / congelado",
		RejectEs: []string{`parada en`, `stall`},
		Why:      "a process that stops and goes on later (a GC pause): congelado, as a native reader says of a frozen process (detenido read as arrested or stopped for good); parado is an actor moved to a checkpoint, caído one that crashed"},
	{Name: "arm", En: "arm", Es: "armar",
		RejectEs: []string{`[Pp]rograma (primero )?(la|una|el|las|los|dos) (caídas?|fallo|duplicado|detención)`, `[Pp]rograma que`, `[Pp]repar\w*`, `nada programado`},
		Why:      "a fault waits for its moment: the screen marks it ⚑ armado; programar stays for a retry's next attempt"},
	{Name: "restart", En: "restart", Es: "reiniciar",
		RejectEs: []string{`rearranca\w*`, `relanza\w*`}},
	{Name: "resume", En: "resume", Es: "reanudar",
		RejectEs: []string{`resum\w+`},
		Why:      "resumir is a false friend"},
	{Name: "marker", En: "marker", Es: "marca",
		RejectEs: []string{`marcador(es)?`},
		Why:      "the inbox row: the timeline says marca, the lessons said marcador"},
	{Name: "COMMIT", En: "COMMIT", Es: "COMMIT / confirmar",
		RejectEs: []string{`commit`, `commits`, `commitea\w*`},
		Why:      "the statement is COMMIT, upper case as SQL writes it; the verb is confirmar"},
	{Name: "timeline", En: "timeline", Es: "cronología",
		RejectEs: []string{`(?i:línea de tiempo)`, `timeline`},
		Why:      "the pane is titled Cronología"},
	{Name: "dual write", En: "dual write", Es: "escritura dual",
		RejectEs: []string{`escritura doble`, `doble escritura`}},
	{Name: "drain", En: "drain", Es: "vaciar",
		RejectEs: []string{`dren\w*`}},
	{Name: "checkpoint", En: "checkpoint", Es: "checkpoint",
		RejectEs: []string{`(?i:punto de control)`, `puntos de control`}},
	{Name: "aggregate", En: "aggregate", Es: "agregado",
		RejectEs: []string{`aggregate`, `aggregates`},
		Why:      "the DDD word in Spanish; aggregate_id and aggregate_version are column names and stay"},
	{Name: "batch", En: "batch", Es: "lote",
		RejectEs: []string{`batch`}},
	{Name: "compare mode", En: "compare mode", Es: "modo comparación",
		RejectEs: []string{`modo compare`}},
	{Name: "test", En: "test", Es: "prueba",
		RejectEs: []string{`test`, `tests`}},
	{Name: "writer", En: "writer", Es: "escritor",
		RejectEs: []string{`writer`}},
	{Name: "request", En: "request", Es: "petición",
		RejectEs: []string{`solicitud`, `solicitudes`},
		Why:      "the lessons said petición, the screen solicitud: one word for an HTTP request"},
}

// Misuse is one place a text breaks the glossary.
type Misuse struct {
	Term  string // the glossary's name
	Found string // the text found
	Want  string // what the language writes
	At    int    // where, in bytes
}

type compiled struct {
	term   Term
	reject []*regexp.Regexp
	upper  *regexp.Regexp // the capitalised form of a Lower term
}

// glossaryRE is compiled on first use: only the checks of a text (the
// tests, a lesson's check) need it, and compiled at init its regexps were
// 3.5 MB of heap in every outboxlab process, serve and live included.
var glossaryRE = sync.OnceValue(func() map[string][]compiled {
	return map[string][]compiled{"en": compile("en"), "es": compile("es")}
})

func word(s string) *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[^\p{L}\p{N}_\-/.])(` + s + `)(?:$|[^\p{L}\p{N}_\-/])`)
}

func compile(lang string) []compiled {
	var out []compiled
	for _, t := range Glossary {
		c := compiled{term: t}
		rejects, form := t.RejectEn, t.En
		if lang == "es" {
			rejects, form = t.RejectEs, t.Es
		}
		for _, r := range rejects {
			c.reject = append(c.reject, word(r))
		}
		if t.Lower {
			r, n := utf8.DecodeRuneInString(form)
			c.upper = word(regexp.QuoteMeta(string(unicode.ToUpper(r)) + form[n:]))
		}
		out = append(out, c)
	}
	return out
}

// code spans (`…`) are the schema's and the scene language's words, not
// prose.
var codeSpan = regexp.MustCompile("`[^`]*`")

// Misused lists where text (prose in lang: a message, a lesson's
// paragraph) breaks the glossary: a rejected variant, or a lower-case term
// capitalised where no sentence begins. Code spans are skipped.
func Misused(lang, text string) []Misuse {
	text = codeSpan.ReplaceAllStringFunc(text, func(s string) string { return strings.Repeat(" ", len(s)) })
	var out []Misuse
	for _, c := range glossaryRE()[lang] {
		want := c.term.En
		if lang == "es" {
			want = c.term.Es
		}
		for _, r := range c.reject {
			for _, m := range r.FindAllStringSubmatchIndex(text, -1) {
				out = append(out, Misuse{c.term.Name, text[m[2]:m[3]], want, m[2]})
			}
		}
		if c.upper == nil {
			continue
		}
		for _, ix := range c.upper.FindAllStringSubmatchIndex(text, -1) {
			if !sentenceStart(text[:ix[2]]) {
				out = append(out, Misuse{c.term.Name, text[ix[2]:ix[3]], want, ix[2]})
			}
		}
	}
	return out
}

// sentenceStart reports whether a word after before begins a sentence (or
// a title, a list item, a paragraph).
func sentenceStart(before string) bool {
	before = strings.TrimRight(before, " \t*_¿¡«\"'(")
	if before == "" || strings.HasSuffix(before, "\n") {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(before)
	return strings.ContainsRune(".?!…\n", r)
}
