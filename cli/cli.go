package cli

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/outboxlab/outboxlab/badinput"
	"github.com/spf13/cobra"
)

// Execute runs the command line args (without the program's name), writing
// to stdout and stderr, and returns the exit code: 0 ok, 1 a check or scene
// failed, 2 bad input.
func Execute(args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(longFlags(root, args))
	cmd, err := root.ExecuteC()
	return report(cmd, err, stderr)
}

// newRoot is the whole command tree: the root opens the simulator (or a
// lesson); the other commands hang under it.
func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := newOpen("outboxlab")
	root.SetOut(stdout)
	root.SetErr(stderr)
	// Errors are said once, by report, as one line and a hint; the usage
	// is for --help, not for every failure.
	root.SilenceErrors = true
	root.SilenceUsage = true
	root.SetFlagErrorFunc(flagError)
	sim := newOpen("sim") // the simulator by name, as `outboxlab sim` always opened it
	sim.Hidden = true
	root.AddCommand(newLessons(), newPlay(), newDoctor(), newServe(), newLive(), newWorkshop(),
		newScenes(), newRun(), newStory(), newChaos(), newVersion(), sim)
	setHelp(root)
	// cobra adds help and completion when it executes; added now, the tree
	// is whole for longFlags, the README's test and argument checks.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	argsAreInput(root)
	return root
}

// argsAreInput makes every command's wrong arguments bad input (exit 2),
// cobra's own commands' (help, completion) as well as ours.
func argsAreInput(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil && !badinput.Is(err) {
				return usage(err)
			} else if err != nil {
				return err
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		argsAreInput(sub)
	}
}

// signalContext is cancelled by SIGINT, SIGTERM or SIGHUP, so every path stops
// the server it booted instead of leaving it running.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
}
