package importtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docGo is what a doc.go holds: the package's comment, then its clause,
// and nothing else.
var docGo = regexp.MustCompile(`\A(?://[^\n]*\n)+package \w+\n\z`)

// Every package of the module says what it holds in a doc.go, where a
// newcomer looks first (and `go doc` reads): its comment ("Package x …",
// "Command x …" for a program) and its package clause, nothing else.
func TestEveryPackageHasADocGo(t *testing.T) {
	root := filepath.Join("..", "..")
	seen := 0
	for _, p := range listPackages(t, root) {
		seen++
		b, err := os.ReadFile(filepath.Join(p.Dir, "doc.go"))
		if err != nil {
			t.Errorf("%s has no doc.go: give it one with the package's comment", p.ImportPath)
			continue
		}
		lead := "// Package " + p.Name + " "
		if p.Name == "main" {
			lead = "// Command "
		}
		switch {
		case !strings.HasPrefix(string(b), lead):
			t.Errorf("%s/doc.go does not begin %q", p.ImportPath, lead)
		case !docGo.Match(b):
			t.Errorf("%s/doc.go holds more than the package's comment and clause", p.ImportPath)
		}
	}
	if seen < 30 {
		t.Fatalf("go list named %d packages; the module has more", seen)
	}
}
