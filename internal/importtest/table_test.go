package importtest

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// table reads CONTRIBUTING.md's layout table: for each package of the
// module (by its path in the module, "." for the root), the module's
// packages it may import.
func table(t *testing.T, text string) map[string][]string {
	t.Helper()
	pkg := regexp.MustCompile("`([^`]+)`")
	allowed := map[string][]string{}
	for _, line := range strings.Split(text, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		var may []string
		if m := strings.TrimSpace(cells[3]); m != "—" {
			for _, p := range strings.Split(m, ",") {
				may = append(may, strings.TrimSpace(p))
			}
		}
		for _, m := range pkg.FindAllStringSubmatch(cells[1], -1) {
			allowed[strings.TrimSuffix(m[1], "/")] = may
		}
	}
	if len(allowed) == 0 {
		t.Fatal("CONTRIBUTING.md has no layout table")
	}
	return allowed
}

// TestEveryImportIsInTheTable holds every package of the module to
// CONTRIBUTING.md's table: each imports (tests aside) only the module's
// packages its row allows, and every package has a row.
func TestEveryImportIsInTheTable(t *testing.T) {
	root := filepath.Join("..", "..")
	text, err := os.ReadFile(filepath.Join(root, "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	allowed := table(t, string(text))
	seen := 0
	for _, p := range listPackages(t, root) {
		seen++
		name := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, Module), "/")
		if name == "" {
			name = "."
		}
		may, ok := allowed[name]
		if !ok {
			t.Errorf("%s has no row in CONTRIBUTING.md's layout table: add one (what it holds, what it may import)", name)
			continue
		}
		for _, imp := range p.Imports {
			own, ok := strings.CutPrefix(imp, Module+"/")
			if !ok {
				continue
			}
			if !slices.Contains(may, own) {
				t.Errorf("%s imports %s, which its row in CONTRIBUTING.md does not allow (it may import: %s)", name, own, strings.Join(may, ", "))
			}
		}
	}
	if seen < 30 {
		t.Fatalf("go list named %d packages; the module has more", seen)
	}
}

// The table's reader takes a row of several packages, a "—", and skips
// the rows that head a wing.
func TestTheTableReader(t *testing.T) {
	got := table(t, "| package | what | may import |\n|---|---|---|\n| `a/`, `b/` | x | c, d/e |\n| **wing** | | |\n| `f/` | y | — |\n")
	want := map[string][]string{"a": {"c", "d/e"}, "b": {"c", "d/e"}, "f": nil}
	if len(got) != len(want) {
		t.Fatalf("read %v, want %v", got, want)
	}
	for k, v := range want {
		if !slices.Equal(got[k], v) {
			t.Errorf("%s: %v, want %v", k, got[k], v)
		}
	}
}

// listedPackage is what go list says of one package of the module.
type listedPackage struct {
	ImportPath, Dir, Name string
	Imports               []string
}

// listPackages lists the module's packages, from its root, as go list does.
func listPackages(t *testing.T, root string) []listedPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Dir,Name,Imports", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var all []listedPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		all = append(all, p)
	}
	return all
}
