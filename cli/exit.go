package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/outboxlab/outboxlab/badinput"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The exit codes: 0 ok, 1 the check or scene failed, 2 bad input.
const (
	ExitOK    = 0
	ExitFail  = 1
	ExitUsage = 2
)

// errFailed is a command's failure it has said already on stdout (a scene
// whose expected outcome did not hold, chaos that found a violation):
// exit 1 with nothing more said.
var errFailed = errors.New("failed")

// usageError is bad input in the command line itself (a flag, an argument):
// said with a hint to the command's --help.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usage marks err as a mistake in the command line: bad input.
func usage(err error) error { return &usageError{badinput.Wrap(err)} }

// exitCode is the one place an error becomes an exit code: bad input
// (package badinput, whichever package said it) exits 2, any other error 1.
func exitCode(err error) int {
	switch {
	case err == nil:
		return ExitOK
	case badinput.Is(err):
		return ExitUsage
	default:
		return ExitFail
	}
}

// report says err on stderr as "outboxlab CMD: err" (the hint to --help
// after a command line mistake) and returns its exit code.
func report(cmd *cobra.Command, err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, errFailed) {
		return exitCode(err)
	}
	path := "outboxlab"
	if cmd != nil {
		path = cmd.CommandPath()
	}
	fmt.Fprintf(stderr, "%s: %v\n", path, err)
	var u *usageError
	if errors.As(err, &u) {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", path)
	}
	return exitCode(err)
}

// flagError is every command's flag error: bad input, an unknown flag said
// as Go's flag package said it before the move to cobra.
func flagError(_ *cobra.Command, err error) error {
	var missing *pflag.NotExistError
	if errors.As(err, &missing) && missing.GetSpecifiedName() != "" {
		err = fmt.Errorf("flag provided but not defined: -%s", missing.GetSpecifiedName())
	}
	return usage(err)
}

// noArgs refuses any argument, so a typo is not ignored.
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usage(fmt.Errorf("unexpected argument %q", args[0]))
	}
	return nil
}

// oneName takes at most one NAME, before, between or after the flags
// (outboxlab run crash-after-publish --json, or --json before it); a
// missing one is the command's to say.
func oneName(_ *cobra.Command, args []string) error {
	if len(args) > 1 {
		return usage(fmt.Errorf("unexpected argument %q", args[len(args)-1]))
	}
	return nil
}

// nameOf is the NAME oneName let through, "" when none was given.
// sceneOf is the scene a command names, or the bad input of naming none.
func sceneOf(args []string) (string, error) {
	if name := nameOf(args); name != "" {
		return name, nil
	}
	return "", badinput.New("which scene? `outboxlab scenes` lists them")
}

func nameOf(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}
