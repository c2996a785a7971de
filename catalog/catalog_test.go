package catalog

import "testing"

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
