package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// longFlags rewrites -name and -name=value to --name and --name=value for
// every long flag a command defines: Go's flag package, which outboxlab
// parsed with before cobra, took one dash as well as two (outboxlab run
// rollback -seed 3), and scripts and muscle memory still do. Single letters
// (-h) are shorthands and stay; nothing after "--" changes.
func longFlags(root *cobra.Command, args []string) []string {
	known := map[string]bool{"help": true, "version": true}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		add := func(f *pflag.Flag) { known[f.Name] = true }
		c.Flags().VisitAll(add)
		c.PersistentFlags().VisitAll(add)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	out := make([]string, len(args))
	copy(out, args)
	for i, a := range out {
		if a == "--" {
			break
		}
		if len(a) < 3 || a[0] != '-' || a[1] == '-' {
			continue
		}
		name, _, _ := strings.Cut(a[1:], "=")
		if known[name] {
			out[i] = "-" + a
		}
	}
	return out
}
