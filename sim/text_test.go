package sim

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/outboxlab/outboxlab/catalog"
)

// keysIn finds the sentence keys the call pattern quotes (its first group, a
// Go string literal) in the non-test files of glob, as file → keys.
func keysIn(t *testing.T, glob string, call *regexp.Regexp) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range call.FindAllSubmatch(src, -1) {
			key, err := strconv.Unquote(string(m[1]))
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			out[f] = append(out[f], key)
		}
	}
	return out
}

// checkKeys fails on every key without Spanish that says needs it, and on
// finding fewer than least keys (the pattern no longer matches).
func checkKeys(t *testing.T, found map[string][]string, least int, needs func(string) bool, what string) {
	t.Helper()
	n := 0
	for f, keys := range found {
		for _, key := range keys {
			n++
			if !catalog.Known(key) && needs(key) {
				t.Errorf("%s: %s %q has no Spanish in the catalog", f, what, key)
			}
		}
	}
	if n < least {
		t.Errorf("found only %d %ss: the pattern no longer matches", n, what)
	}
}

var literal = `("(?:[^"\\]|\\.)*")`

// Every sentence the simulator writes as a catalog sentence has its Spanish:
// a new one without it would show English on a Spanish screen.
func TestEveryTimelineSentenceIsTranslated(t *testing.T) {
	t.Parallel()
	found := keysIn(t, "*.go", regexp.MustCompile(`\btext\(`+literal))
	checkKeys(t, found, 30, func(string) bool { return true }, "timeline sentence")
}

// What an actor says of its own step (engine.Say) and why pg says the server
// is down reach the timeline inside a sentence: they have their Spanish too.
func TestEveryActorPhraseIsTranslated(t *testing.T) {
	t.Parallel()
	verb := regexp.MustCompile(`%[a-z]`) // "%s: %s" has no words to say
	words := func(key string) bool { return strings.ContainsFunc(verb.ReplaceAllString(key, ""), unicode.IsLetter) }
	found := keysIn(t, "../engine/*.go", regexp.MustCompile(`\bSay\(`+literal))
	for f, keys := range keysIn(t, "../pg/alive.go", regexp.MustCompile(`\bformat(?:, e\.args)?\s*[:=]+\s*`+literal)) {
		found[f] = append(found[f], keys...)
	}
	for f, keys := range keysIn(t, "../pg/*.go", regexp.MustCompile(`\bsaid\(\w+, `+literal)) {
		found[f+" (said)"] = append(found[f+" (said)"], keys...)
	}
	checkKeys(t, found, 40, words, "phrase")
}

// What the simulator refuses reaches the learner's screen as a sentence:
// each refusal has its Spanish, but for the mistakes only a scene file can
// make (they name its file and line, or its headers), which `run` prints.
func TestEveryRefusalIsTranslated(t *testing.T) {
	t.Parallel()
	authors := []string{"unknown command %q", "%s", "%s:%d: restart-postgres needs the embedded server; --database-url points at one outboxlab must not stop, and a data directory another outboxlab has open is that one's to restart",
		"%s:%d: %s: %s", "scene %s has no variant %q", "--mode %v", "want %s ACTOR at CHECKPOINT"}
	found := keysIn(t, "*.go", regexp.MustCompile(`\bscriptf\(`+literal))
	checkKeys(t, found, 15, func(key string) bool { return !slices.Contains(authors, key) }, "refusal")
}
