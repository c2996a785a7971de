package importtest

import (
	"os/exec"
	"strings"
	"testing"
)

// Module is this module's path.
const Module = "github.com/outboxlab/outboxlab"

// Simulator are the simulator's packages, which neither the engine nor the
// deployment may link, as patterns of Forbid.
var Simulator = []string{"sim/...", "scenes/...", "chaos/...", "story/...", "lessons/...", "provider/...", "catalog/...", "simhttp/...",
	"ui/...", "wallsim/...", "workshop/..."}

// Deps are the packages pkg links, itself included, as go list -deps says.
func Deps(t testing.TB, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, msg)
	}
	return strings.Fields(string(out))
}

// Forbid fails t for each package pkg links that one of forbidden names:
// an import path, or a path relative to the module ("sim" is the module's
// sim) when its first element has no dot; "/..." at the end takes the
// packages under it too, as go list's patterns do ("github.com/nats-io/...").
func Forbid(t testing.TB, pkg string, forbidden ...string) {
	t.Helper()
	for _, dep := range Deps(t, pkg) {
		for _, f := range forbidden {
			if !strings.Contains(strings.SplitN(f, "/", 2)[0], ".") {
				f = Module + "/" + f
			}
			base, tree := strings.CutSuffix(f, "/...")
			if dep == base || tree && strings.HasPrefix(dep, base+"/") {
				t.Errorf("%s links %s (through its imports): an arrow the wings forbid; go list -deps %s says how", pkg, dep, pkg)
			}
		}
	}
}
