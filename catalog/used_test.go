package catalog

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// composed are the keys no literal spells whole: the code builds them.
var composed = map[string]string{
	"outbox pipeline": `story: p.Word(s.Pipeline+" pipeline")`,
	"naive pipeline":  `story: p.Word(s.Pipeline+" pipeline")`,
	"interest":        "deployui: the stream's retention policy, as JetStream names it (a deployment's broker purges instead: deploy.RetentionPurged)",
}

// composedPrefix are keys built from a literal and a constant of another
// package (pg.InstallHelp names pg.EnvBinDir).
var composedPrefix = []string{"install PostgreSQL (Debian/Ubuntu: "}

// Every message is said somewhere: a key no code writes any more is a
// sentence left behind by a change, which a translator would still be asked
// to keep true.
func TestEveryMessageIsUsed(t *testing.T) {
	said := literals(t, "..")
	for _, m := range messages {
		if !said[m.en] && composed[m.en] == "" && !slices.ContainsFunc(composedPrefix, func(p string) bool { return strings.HasPrefix(m.en, p) }) {
			t.Errorf("no code says %q: delete it from messages.go", m.en)
		}
	}
	for _, p := range plurals {
		if !said[p.key] && composed[p.key] == "" {
			t.Errorf("no code says the plural %q: delete it from messages.go", p.key)
		}
	}
}

// literals are the string constants of the module's Go code outside tests
// and the catalog, a concatenation of literals counted whole.
func literals(t *testing.T, root string) map[string]bool {
	t.Helper()
	said := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && d.Name() != "." && d.Name() != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || filepath.Base(filepath.Dir(p)) == "catalog" {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if s, ok := constant(n); ok {
				said[s] = true
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return said
}

// constant is the string a literal, or a + of literals, spells.
func constant(n ast.Node) (string, bool) {
	switch n := n.(type) {
	case *ast.BasicLit:
		if n.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(n.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		if n.Op != token.ADD {
			return "", false
		}
		x, ok := constant(n.X)
		if !ok {
			return "", false
		}
		y, ok := constant(n.Y)
		return x + y, ok
	case *ast.ParenExpr:
		return constant(n.X)
	}
	return "", false
}
