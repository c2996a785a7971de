package main

import (
	"os"

	"github.com/outboxlab/outboxlab/cli"
)

// version is the release's name, set by the release build
// (-ldflags "-X main.version=v1.2.3", see scripts/release).
var version = ""

func main() {
	cli.Release = version
	os.Exit(cli.Execute(os.Args[1:], os.Stdout, os.Stderr))
}
