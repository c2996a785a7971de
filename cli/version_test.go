package cli

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// The version line prefers the release's name, then Go's module version, and
// carries the VCS stamp when there is one.
func TestVersionString(t *testing.T) {
	stamped := &debug.BuildInfo{
		Main: debug.Module{Path: "github.com/outboxlab/outboxlab", Version: "v0.4.0"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "4840eb9a1b2c3d4e5f60718293a4b5c6d7e8f901"},
			{Key: "vcs.time", Value: "2026-12-05T09:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	platform := " " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	for _, c := range []struct {
		name, release string
		info          *debug.BuildInfo
		want          string
	}{
		{"release overrides", "v1.2.3", stamped, "outboxlab v1.2.3 (commit 4840eb9a1b2c, 2026-12-05T09:00:00Z, modified)" + platform},
		{"module version", "", stamped, "outboxlab v0.4.0 (commit 4840eb9a1b2c, 2026-12-05T09:00:00Z, modified)" + platform},
		{"devel without stamp", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "outboxlab devel" + platform},
		{"no build info", "", nil, "outboxlab devel" + platform},
		{"clean tree", "v1.0.0", &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}}, "outboxlab v1.0.0 (commit abc)" + platform},
	} {
		if got := versionString(c.release, c.info); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// A release build's -X main.version (main hands it to Release) reaches every
// spelling of the command, and an argument after it is bad input.
func TestVersionOfAReleaseBuild(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "outboxlab")
	// The flags of binary() and of CI's build but -ldflags, which only the
	// link reads: every package comes from the build cache. scripts/release
	// adds -trimpath, which the version line does not depend on but which
	// changes every package's build ID, so with it this test recompiled the
	// whole module and its dependencies (147 s of the race suite's cli).
	if out, err := exec.Command("go", "build", "-ldflags", "-X main.version=v9.8.7-test", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"--version"}, {"version"}, {"-version"}} {
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("outboxlab %v: %v", args, err)
		}
		if !strings.HasPrefix(string(out), "outboxlab v9.8.7-test ") || !strings.Contains(string(out), runtime.GOOS+"/"+runtime.GOARCH) {
			t.Errorf("outboxlab %v printed %q", args, out)
		}
	}
	var stderr bytes.Buffer
	if code := Execute([]string{"version", "extra"}, &bytes.Buffer{}, &stderr); code != ExitUsage || !strings.Contains(stderr.String(), `unexpected argument "extra"`) {
		t.Errorf("version extra: exit %d, %q; want exit 2 naming the argument", code, stderr.String())
	}
	if code := Execute([]string{"--version", "extra"}, &bytes.Buffer{}, &stderr); code != ExitUsage {
		t.Errorf("--version extra: exit %d, want 2", code)
	}
}
