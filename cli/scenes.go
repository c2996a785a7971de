package cli

import (
	"fmt"

	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/spf13/cobra"
)

// newScenes lists the scenes, one line each.
func newScenes() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "scenes",
		Short: "list the scenes, one line each",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			all, err := scenes.Load(dir)
			if err != nil {
				return badinput.Wrap(err)
			}
			for _, sc := range all {
				fmt.Fprintf(cmd.OutOrStdout(), "%-22s %s\n", sc.Name, sc.Title)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "scenes", "", "also load the scene files (*.scene) in this directory")
	return cmd
}
