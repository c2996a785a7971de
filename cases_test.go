package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// caseNumber is how the code, the scenes and the course name a case: S and
// its number, a word of its own.
var caseNumber = regexp.MustCompile(`\bS([1-9][0-9]?)\b`)

// Every case number the code, the scenes or the course name is defined in
// CONTRIBUTING's table of cases: a reader who meets "(S13)" in a comment
// finds what it is there, not in a document outside the repository.
func TestEveryCaseIsDefined(t *testing.T) {
	doc, err := os.ReadFile("CONTRIBUTING.md")
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\| (S[0-9]+) \|`).FindAllStringSubmatch(string(doc), -1) {
		defined[m[1]] = true
	}
	if len(defined) < 20 {
		t.Fatalf("CONTRIBUTING.md defines %d cases: its table is not where the test looks", len(defined))
	}
	used := 0
	err = filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != "." || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		switch filepath.Ext(p) {
		case ".go", ".md", ".scene", ".sql":
		default:
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range caseNumber.FindAllString(string(b), -1) {
			used++
			if !defined[m] {
				t.Errorf("%s names %s, which CONTRIBUTING.md's table of cases does not define", p, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if used == 0 {
		t.Fatal("no case number found: the test reads nothing")
	}
}
