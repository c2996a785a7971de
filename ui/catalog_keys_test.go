package ui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/catalog"
)

// sameInSpanish are the words the screen passes through the catalog that
// Spanish writes as English does: numbers and units (the printer formats
// them per language) and the glossary's English terms.
var sameInSpanish = map[string]bool{"%d": true, "%.2f": true, "%d B": true, "%.1f kB": true, "%.1f MB": true, "Pipeline": true}

// Every sentence the screen's code says through the catalog (a literal
// given to T or Word) has its Spanish: one missing drew English on a
// Spanish screen (‖ stalled in the pipeline) while every test of the
// catalog passed, each reading the catalog, not the calls. The screen's
// code is this package, its panes' packages under it and package screen.
func TestEveryWordTheScreenSaysHasItsSpanish(t *testing.T) {
	var files []string
	for _, root := range []string{".", "../screen"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	fset := token.NewFileSet()
	said := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "T" && sel.Sel.Name != "Word" {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			key, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			said++
			if !catalog.Known(key) && !sameInSpanish[key] {
				t.Errorf("%s: %q has no Spanish in the catalog", fset.Position(lit.Pos()), key)
			}
			return true
		})
	}
	if said < 100 {
		t.Fatalf("found only %d sentences said through the catalog: the test no longer sees the calls", said)
	}
}
