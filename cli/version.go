package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// Release is the release's name, which main sets from its version variable
// (-ldflags "-X main.version=v1.2.3", see scripts/release); empty in a
// build from source, which then reports what Go stamped into the binary.
var Release = ""

// newVersion prints the version: `outboxlab version` (and the root's
// --version).
func newVersion() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print the version (release, commit, Go, platform)",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usage(fmt.Errorf("unexpected argument %q (it takes none)", args[0]))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return printVersion(cmd.OutOrStdout()) },
	}
}

func printVersion(out io.Writer) error {
	info, _ := debug.ReadBuildInfo() // nil when the binary carries none
	fmt.Fprintln(out, versionString(Release, info))
	return nil
}

// versionString says which build this is, one line: the release name (or the
// module version Go derived from the git tag, or "devel"), then the commit,
// its time and whether the tree had uncommitted changes, as Go's VCS stamp
// records them, then the Go version and the platform. A bug report quotes it.
func versionString(release string, info *debug.BuildInfo) string {
	name := release
	if name == "" && info != nil && info.Main.Version != "" && info.Main.Version != "(devel)" {
		name = info.Main.Version
	}
	if name == "" {
		name = "devel"
	}
	var vcs []string
	if info != nil {
		settings := map[string]string{}
		for _, s := range info.Settings {
			settings[s.Key] = s.Value
		}
		if rev := settings["vcs.revision"]; rev != "" {
			if len(rev) > 12 {
				rev = rev[:12]
			}
			vcs = append(vcs, "commit "+rev)
		}
		if t := settings["vcs.time"]; t != "" {
			vcs = append(vcs, t)
		}
		if settings["vcs.modified"] == "true" {
			vcs = append(vcs, "modified")
		}
	}
	line := "outboxlab " + name
	if len(vcs) > 0 {
		line += " (" + strings.Join(vcs, ", ") + ")"
	}
	return line + " " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
}
