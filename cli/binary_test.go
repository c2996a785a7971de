package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/outboxlab/outboxlab/internal/testrun"
)

var (
	buildOnce sync.Once
	built     string
	buildErr  error
	buildOut  []byte
)

// binary is outboxlab built from the module root, once per test process,
// for the tests that run it as a user (or a shell) does.
func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "outboxlab-cli-")
		if err != nil {
			buildErr = err
			return
		}
		built = filepath.Join(dir, "outboxlab")
		buildOut, buildErr = exec.Command("go", "build", "-o", built, "..").CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("go build: %v\n%s", buildErr, buildOut)
	}
	return built
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built != "" {
		os.RemoveAll(filepath.Dir(built))
	}
	testrun.Exit(code)
}
