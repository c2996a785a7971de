package sim

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/outboxlab/outboxlab/catalog"
)

// Every sentence the simulator writes as a catalog sentence has its Spanish:
// a new one without it would show English on a Spanish screen.
func TestEveryTimelineSentenceIsTranslated(t *testing.T) {
	spanish := map[string]bool{}
	for _, tr := range catalog.Translated() {
		spanish[tr[0]] = true
	}
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
			if !spanish[key] {
				t.Errorf("%s: %q has no Spanish in the catalog", f, key)
			}
		}
	}
	if n < 30 {
		t.Errorf("found only %d catalog sentences in sim: the pattern no longer matches", n)
	}
}
