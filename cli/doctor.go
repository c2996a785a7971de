package cli

import (
	"fmt"

	"github.com/outboxlab/outboxlab/pg"
	"github.com/spf13/cobra"
)

// newDoctor boots the embedded PostgreSQL, reports its facts and stops it:
// the last line says ok or not ok.
func newDoctor() *cobra.Command {
	var pf pgFlags
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "boot the embedded PostgreSQL, report, stop",
		Long:  "boot the embedded PostgreSQL, report, stop (exit 0 ok, 1 it failed, 2 bad flags or no PostgreSQL to use)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			ctx, stop := signalContext()
			defer stop()
			srv, err := pg.Boot(ctx, pf.options())
			if err != nil {
				fmt.Fprintln(out, "not ok")
				return err
			}
			printFacts(out, srv.Facts())
			if err := srv.Stop(); err != nil {
				fmt.Fprintln(out, "not ok")
				return fmt.Errorf("stop: %w", err)
			}
			fmt.Fprintln(out, "ok")
			return nil
		},
	}
	pf.register(cmd.Flags())
	return cmd
}
