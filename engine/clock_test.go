package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The engine reads time only from its Clock: the simulator controls it, so a
// timeline, a lease or a status update's time is the same on every replay.
// The rule, for every non-test .go file of engine/ and engine/jetstream/:
// no call (nor reference) to time.Now, Since, Until, Sleep, After,
// AfterFunc, NewTimer, NewTicker or Tick, except in the clock's own
// implementation (SystemClock.Now). A real wait against the server or the
// network (a poll interval, an answer's timeout) is a context deadline
// (context.WithTimeout), which is not a reading of the time. engine/jetstream
// stamps PublishedAt and DeliveredAt with its Config.Clock, which is
// engine.SystemClock unless the caller gives another: it uses the system
// clock only through it.
func TestEngineReadsTimeOnlyFromItsClock(t *testing.T) {
	banned := map[string]bool{"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true,
		"AfterFunc": true, "NewTimer": true, "NewTicker": true, "Tick": true}
	var files []string
	for _, dir := range []string{".", "jetstream"} {
		got, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, got...)
	}
	checked := 0
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		timePkg := ""
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "time" {
				timePkg = "time"
				if imp.Name != nil {
					timePkg = imp.Name.Name
				}
			}
		}
		if timePkg == "" || timePkg == "_" {
			continue
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && isSystemClockNow(fn) && filepath.Dir(path) == "." {
				continue // the clock itself
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == timePkg && banned[sel.Sel.Name] {
					t.Errorf("%s: time.%s: the engine reads time from its Clock (a wait against the network is a context deadline)", fset.Position(sel.Pos()), sel.Sel.Name)
				}
				return true
			})
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d files, want the engine's", checked)
	}
}

func isSystemClockNow(fn *ast.FuncDecl) bool {
	if fn.Name.Name != "Now" || fn.Recv == nil || len(fn.Recv.List) != 1 {
		return false
	}
	id, ok := fn.Recv.List[0].Type.(*ast.Ident)
	return ok && id.Name == "SystemClock"
}
