package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("crosscheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", ".", "the module's directory")
	pattern := fs.String("pattern", "./...", "the packages to check, as go list takes them")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "crosscheck: name at least one target, as GOOS/GOARCH (e.g. windows/amd64)")
		return 2
	}
	failed := false
	for _, target := range fs.Args() {
		goos, goarch, ok := strings.Cut(target, "/")
		if !ok || goos == "" || goarch == "" {
			fmt.Fprintf(stderr, "crosscheck: %q is not a target: write it GOOS/GOARCH, e.g. windows/amd64\n", target)
			return 2
		}
		start := time.Now()
		problems, n, err := check(*dir, *pattern, goos, goarch)
		if err != nil {
			fmt.Fprintf(stderr, "crosscheck: %s: %v\n", target, err)
			return 2
		}
		for _, p := range problems {
			fmt.Fprintf(stderr, "%s: %s\n", target, p)
		}
		failed = failed || len(problems) > 0
		fmt.Fprintf(stdout, "   %-14s %d packages, %d errors, %.1fs\n", target, n, len(problems), time.Since(start).Seconds())
	}
	if failed {
		return 1
	}
	return 0
}

// check loads and type-checks pattern and everything it imports, from
// source, for one target, and returns every error found and how many
// packages were checked.
func check(dir, pattern, goos, goarch string) ([]string, int, error) {
	cfg := &packages.Config{
		Mode: packages.LoadAllSyntax,
		Dir:  dir,
		// The release builds with cgo off (scripts/release): a package
		// that needs cgo for a target must not be linked for it.
		Env: append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0", "GOFLAGS=-mod=readonly"),
	}
	pkgs, err := packages.Load(cfg, pattern)
	if err != nil {
		return nil, 0, err
	}
	var problems []string
	n := 0
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		n++
		for _, e := range p.Errors {
			problems = append(problems, fmt.Sprintf("%s: %s", p.PkgPath, e))
		}
	})
	return problems, n, nil
}
