package cli

import (
	"fmt"
	"os"
	"strconv"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
)

// wrapFlagHelp makes cmd's --help wrap its flags' text at the terminal's
// width (helpWidth), between words: cobra prints each flag's text on one
// line, and the terminal then breaks it wherever the width ends, in the
// middle of a URL (nats://HOST:PORT) as soon as the line is longer than 80
// columns. A word longer than the space left stays whole.
func wrapFlagHelp(cmd *cobra.Command) {
	cmd.SetUsageFunc(func(c *cobra.Command) error {
		w := c.OutOrStderr()
		width := helpWidth()
		fmt.Fprintf(w, "Usage:\n  %s\n\nFlags:\n%s", c.UseLine(), c.LocalFlags().FlagUsagesWrapped(width))
		if c.HasAvailableInheritedFlags() {
			fmt.Fprintf(w, "\nGlobal Flags:\n%s", c.InheritedFlags().FlagUsagesWrapped(width))
		}
		return nil
	})
}

// helpWidth is the width help is wrapped at: $COLUMNS when set, else the
// width of the terminal standard output is, else 80 (a pipe, a file).
func helpWidth() int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if fd := os.Stdout.Fd(); term.IsTerminal(fd) {
		if w, _, err := term.GetSize(fd); err == nil && w > 0 {
			return w
		}
	}
	return 80
}
