package catalog

import (
	"regexp"
	"strings"
	"testing"
)

// Spanish is printed where it exists, English otherwise, and counts take
// their plural form in each language.
func TestPrinter(t *testing.T) {
	es, en := For("es"), For("en")
	for _, c := range []struct{ got, want string }{
		{es.T("%s crashed: c restarts it", "api"), "api se cayó: c lo reinicia"},
		{en.T("%s crashed: c restarts it", "api"), "api crashed: c restarts it"},
		{es.T("%d rows", 1), "1 fila"},
		{es.T("%d rows", 3), "3 filas"},
		{en.T("%d rows", 1), "1 row"},
		{en.T("%d entries", 2), "2 entries"},
		{es.T("a message nobody translated %d", 7), "a message nobody translated 7"},
		{(*Printer)(nil).T("%d rows", 2), "2 rows"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	seen := map[string]bool{}
	for _, m := range messages {
		if seen[m.en] {
			t.Errorf("%q is in the catalog twice", m.en)
		}
		seen[m.en] = true
	}
}

// A check's detail counts in the right form: the count may be any argument.
func TestPluralOfALaterArgument(t *testing.T) {
	es, en := For("es"), For("en")
	for _, c := range []struct{ got, want string }{
		{es.T("%s %s: %d rows", "outbox", "payments", 1), "outbox payments: 1 fila"},
		{es.T("%s %s: %d rows", "outbox", "payments", 0), "outbox payments: 0 filas"},
		{en.T("%s %s: %d rows", "outbox", "payments", 1), "outbox payments: 1 row"},
		{es.T("%d matching timeline entries in this step", 1), "1 entrada de la cronología en este paso"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// A message is in the catalog once: a second entry would silently say the
// first one's English another way.
func TestEveryMessageOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range messages {
		if seen[m.en] {
			t.Errorf("%q is in the catalog twice", m.en)
		}
		seen[m.en] = true
	}
	for _, p := range plurals {
		if seen[p.key] {
			t.Errorf("%q is both a message and a plural", p.key)
		}
		seen[p.key] = true
	}
}

// EnglishIn finds an English message in text meant to be Spanish, and not
// its Spanish.
func TestEnglishIn(t *testing.T) {
	if leaks := EnglishIn("  the scene's script is done; keep stepping or break something", 8, nil); len(leaks) != 1 {
		t.Errorf("English text: %v", leaks)
	}
	if leaks := EnglishIn("  el guion de la escena terminó: sigue paso a paso o rompe algo", 8, nil); len(leaks) != 0 {
		t.Errorf("Spanish text: %v", leaks)
	}
}

// The screen says each word of the glossary one way: no Spanish message
// uses a variant the glossary rejects ("marcador" beside "marca", "tumbar",
// "ack timeout"), nor capitalises outbox or inbox mid-sentence.
func TestCatalogKeepsTheGlossary(t *testing.T) {
	for _, m := range messages {
		for _, bad := range Misused("es", m.es) {
			t.Errorf("%q: %q, the glossary says %q", m.es, bad.Found, bad.Want)
		}
		for _, bad := range Misused("en", m.en) {
			t.Errorf("%q: %q, the glossary says %q", m.en, bad.Found, bad.Want)
		}
	}
	for _, p := range plurals {
		for _, s := range []string{p.esOne, p.esOther} {
			for _, bad := range Misused("es", s) {
				t.Errorf("%q: %q, the glossary says %q", s, bad.Found, bad.Want)
			}
		}
	}
}

// Misused finds a rejected variant and a capital mid-sentence, and lets a
// capital begin a sentence and a code span say what the schema says.
func TestMisused(t *testing.T) {
	for _, c := range []struct {
		text string
		n    int
	}{
		{"Inbox lo consigue con una transacción.", 0},
		{"la marca del inbox y el efecto. Outbox y relay.", 0},
		{"La inserción en Inbox chocó", 1},
		{"el marcador de la Outbox", 3}, // marcador, la Outbox (as gender and as capital)
		{"tras el ack timeout", 3},      // ack, ack timeout, timeout
		{"`timeline: api crashed` en la cronología", 0},
		{"c tumbar", 1},
		{"hizo ACK; AckWait 30 s", 0},
	} {
		if got := Misused("es", c.text); len(got) != c.n {
			t.Errorf("%q: %d misuses %v, want %d", c.text, len(got), got, c.n)
		}
	}
}

// A count of rows is said in the number it has, not as «fila(s)» or row(s).
func TestRowCountsArePlural(t *testing.T) {
	es := For("es")
	key := "%s leased %d row(s) with FOR UPDATE SKIP LOCKED and committed the claim%s: %s"
	for n, want := range map[int]string{1: "relay-1 tomó en lease 1 fila con", 2: "relay-1 tomó en lease 2 filas con"} {
		if got := es.Say(key, []any{"relay-1", n, "", "…1a2b3c4d"}); !strings.HasPrefix(got, want) || strings.Contains(got, "(s)") {
			t.Errorf("%d rows: %q, want it to begin %q", n, got, want)
		}
	}
	for n, want := range map[int]string{1: "relay-1 leased 1 row with", 2: "relay-1 leased 2 rows with"} {
		if got := For("en").Say(key, []any{"relay-1", n, "", "x"}); !strings.HasPrefix(got, want) {
			t.Errorf("%d rows: %q, want it to begin %q", n, got, want)
		}
	}
}

// Where an actor stands and what it has armed are words of the screen's
// language; English draws the engine's own.
func TestStates(t *testing.T) {
	es, en := For("es"), For("en")
	for _, c := range []struct{ got, want string }{
		{es.State("claimed"), "tomado"}, {es.State("fault crash"), "caída"}, {es.State("acked"), "con ACK"},
		{en.State("claimed"), "claimed"}, {en.State("fault crash"), "crash"}, {es.State("relay.published"), "relay.published"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// A count is said with the words its number takes: no «(s)» or «(es)» in
// Spanish, and the verb agrees («1 evento espera», «3 eventos esperan»).
func TestSpanishCountsAgree(t *testing.T) {
	hedge := regexp.MustCompile(`\w\((s|es)\)`)
	for _, m := range messages {
		if hedge.MatchString(m.es) || (hedge.MatchString(m.en) && m.en != m.es) {
			t.Errorf("%q says a count as %q: move it to the plurals", m.en, m.es)
		}
	}
	for _, p := range plurals {
		if hedge.MatchString(p.esOne) || hedge.MatchString(p.esOther) {
			t.Errorf("plural %q: Spanish %q / %q hedges its count", p.key, p.esOne, p.esOther)
		}
	}
	es := For("es")
	for _, c := range []struct {
		key  string
		args []any
		want string
	}{
		{"%d event(s) wait behind %s in the CDC relay's stream: the broker refuses it every time, and a stream has no dead letter (no attempts, nothing to skip it), so nothing after it is published", []any{1, "…1a2b"}, "1 evento espera detrás de …1a2b"},
		{"%d event(s) wait behind %s in the CDC relay's stream: the broker refuses it every time, and a stream has no dead letter (no attempts, nothing to skip it), so nothing after it is published", []any{3, "…1a2b"}, "3 eventos esperan detrás de …1a2b"},
		{"nothing it may take: %d ready event(s) wait for an earlier version of their aggregate", []any{1}, "nada que pueda tomar: 1 evento listo espera"},
		{"nothing it may take: %d ready event(s) wait for an earlier version of their aggregate", []any{2}, "nada que pueda tomar: 2 eventos listos esperan"},
		{"%d in %d transaction(s)", []any{3, 1}, "3 en 1 transacción"},
		{"%d in %d transaction(s)", []any{3, 2}, "3 en 2 transacciones"},
		{"%s written with %d parked event(s) that follow it, not committed", []any{"efecto", 1}, "efecto escrito con 1 evento aparcado que lo sigue"},
		{"%d committed row(s) at or below the relay's cursor (seq %d): no poll will ever read them, they are lost", []any{1, 2}, "1 fila confirmada en el cursor del relay o por debajo (seq 2): ninguna consulta la leerá nunca, está perdida"},
	} {
		if got := es.Say(c.key, c.args); !strings.HasPrefix(got, c.want) {
			t.Errorf("%v: %q, want it to begin %q", c.args, got, c.want)
		}
	}
}
