package main

import (
	"io"

	"github.com/outboxlab/outboxlab/cli"
)

// run is the command line as main runs it, for the tests that drive it in
// this process (and signal_test.go's re-executed test binary).
func run(args []string, stdout, stderr io.Writer) int { return cli.Execute(args, stdout, stderr) }

// The exit codes the tests expect: 0 ok, 1 failed, 2 bad input.
const (
	exitOK    = cli.ExitOK
	exitFail  = cli.ExitFail
	exitUsage = cli.ExitUsage
)
