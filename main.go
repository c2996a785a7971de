// Command outboxlab is a terminal simulator of reliable event delivery: it
// boots an embedded PostgreSQL and runs a real transactional outbox, relay,
// broker and inbox against it while the learner pauses, steps and breaks them.
// Its command line is package cli.
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
