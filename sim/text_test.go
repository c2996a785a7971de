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

// Every sentence the simulator writes as a catalog sentence has its Spanish:
// a new one without it would show English on a Spanish screen.
func TestEveryTimelineSentenceIsTranslated(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	call := regexp.MustCompile(`\btext\(("(?:[^"\\]|\\.)*")`)
	n := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range call.FindAllSubmatch(src, -1) {
			key, err := strconv.Unquote(string(m[1]))
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			n++
			if !catalog.Known(key) {
				t.Errorf("%s: %q has no Spanish in the catalog", f, key)
			}
		}
	}
	if n < 30 {
		t.Errorf("found only %d catalog sentences in sim: the pattern no longer matches", n)
	}
}

// What an actor says of its own step (engine.Say) and why pg says the server
// is down reach the timeline inside a sentence: they have their Spanish too.
func TestEveryActorPhraseIsTranslated(t *testing.T) {
	sources := map[string]*regexp.Regexp{
		"../engine/*.go": regexp.MustCompile(`\bSay\(("(?:[^"\\]|\\.)*")`),
		"../pg/alive.go": regexp.MustCompile(`\bformat(?:, e\.args)?\s*[:=]+\s*("(?:[^"\\]|\\.)*")`),
		"../pg/*.go":     regexp.MustCompile(`\bsaid\(\w+, ("(?:[^"\\]|\\.)*")`),
	}
	verb := regexp.MustCompile(`%[a-z]`) // "%s: %s" has no words to say
	n := 0
	for glob, call := range sources {
		files, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
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
				n++
				if !catalog.Known(key) && strings.ContainsFunc(verb.ReplaceAllString(key, ""), unicode.IsLetter) {
					t.Errorf("%s: %q has no Spanish in the catalog", f, key)
				}
			}
		}
	}
	if n < 40 {
		t.Errorf("found only %d phrases in engine and pg: the patterns no longer match", n)
	}
}

// What the simulator refuses reaches the learner's screen as a sentence:
// each refusal has its Spanish, but for the mistakes only a scene file can
// make (they name its file and line, or its headers), which `run` prints.
func TestEveryRefusalIsTranslated(t *testing.T) {
	authors := []string{"unknown command %q", "%s", "%s:%d: restart-postgres needs the embedded server; --database-url points at one outboxlab must not stop, and a data directory another outboxlab has open is that one's to restart",
		"%s:%d: %s: %s", "scene %s has no variant %q", "--mode %v", "want %s ACTOR at CHECKPOINT"}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	call := regexp.MustCompile(`\bscriptf\(("(?:[^"\\]|\\.)*")`)
	n := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range call.FindAllSubmatch(src, -1) {
			key, err := strconv.Unquote(string(m[1]))
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			n++
			if !catalog.Known(key) && !slices.Contains(authors, key) {
				t.Errorf("%s: the refusal %q has no Spanish in the catalog", f, key)
			}
		}
	}
	if n < 15 {
		t.Errorf("found only %d refusals: the pattern no longer matches", n)
	}
}
