package cli

import (
	"fmt"
	"strings"

	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/spf13/cobra"
)

// newLessons prints every lesson, in course order, done or not; with
// --reset it forgets the progress of the lessons named (or of all) first.
func newLessons() *cobra.Command {
	var (
		lang  string
		reset bool
	)
	cmd := &cobra.Command{
		Use:   "lessons [--reset [NAME...]]",
		Short: "list the lessons, done or not; --reset forgets progress",
		Long:  "list the lessons, done or not; --reset forgets the progress of the lessons named after it, or of every lesson",
		// --reset takes optional NAMEs: words after the flags.
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 && !reset {
				return usage(fmt.Errorf("unexpected argument %q (--reset NAME forgets one lesson)", args[0]))
			}
			return nil
		},
		ValidArgsFunction: func(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if !reset {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return startingWith(prefix, lessonNames(lang)), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, names []string) error {
			out := cmd.OutOrStdout()
			l, err := langFlag(lang)
			if err != nil {
				return err
			}
			all, err := lessons.Load(l)
			if err != nil {
				return err
			}
			for _, n := range names {
				if _, err := lessons.Find(all, n); err != nil {
					return badinput.Wrap(err)
				}
			}
			p, err := lessons.LoadProgress("")
			if err != nil {
				return err
			}
			if reset {
				p.Reset(names...)
				if err := p.Save(); err != nil {
					return err
				}
				if len(names) == 0 {
					fmt.Fprintln(out, "progress reset for every lesson")
				} else {
					fmt.Fprintf(out, "progress reset for %s\n", strings.Join(names, ", "))
				}
				return nil
			}
			done := 0
			for i, ls := range all {
				mark := "[ ]"
				state := fmt.Sprintf("%d/%d steps", p.Steps(ls.Name), len(ls.Steps))
				if p.Done(ls.Name) {
					mark, state, done = "[x]", "done", done+1
				}
				fmt.Fprintf(out, "%2d %s %-11s %-10s %s\n", i+1, mark, ls.Name, state, ls.Title)
			}
			fmt.Fprintf(out, "%d of %d done · outboxlab --lesson NAME opens one · progress: %s\n", done, len(all), p.Path())
			return nil
		},
	}
	cmd.Flags().StringVar(&lang, "lang", "", "the lessons' language: en or es (default: from LC_ALL or LANG)")
	cmd.Flags().BoolVar(&reset, "reset", false, "forget the progress of the lessons named after it, or of every lesson")
	completeFlags(cmd)
	return cmd
}
