package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/spf13/cobra"
)

// listWords are the words of `outboxlab lessons` in Spanish, until the
// message catalog has them: the catalog is asked first (catalog.Known), so
// an entry added there wins and this table can go. Keys are the English
// messages the catalog would hold.
var listWords = map[string]string{
	"done":                            "hecha",
	"%d/%d steps":                     "%d/%d pasos",
	"%d/%d step":                      "%d/%d paso",
	"progress reset for every lesson": "progreso borrado en todas las lecciones",
	"progress reset for %s":           "progreso borrado en %s",
	"%d of %d done · outboxlab --lesson NAME opens one · progress: %s": "%d de %d hechas · outboxlab --lesson NOMBRE abre una · progreso: %s",
}

// listPrinter says the lesson list's words in lang.
type listPrinter struct {
	lang string
	cat  *catalog.Printer
}

func (p listPrinter) t(key string, args ...any) string {
	if p.lang != "en" && !catalog.Known(key) {
		if es, ok := listWords[key]; ok {
			return fmt.Sprintf(es, args...)
		}
	}
	return p.cat.T(key, args...)
}

// steps is "2/5 steps", singular when the lesson has one step.
func (p listPrinter) steps(done, total int) string {
	if total == 1 && p.lang != "en" {
		return p.t("%d/%d step", done, total)
	}
	return p.t("%d/%d steps", done, total)
}

// printLessons writes the course, one lesson a line, and the count done.
func printLessons(out io.Writer, lang string, all []*lessons.Lesson, p *lessons.Progress) {
	w := listPrinter{lang, catalog.For(lang)}
	done := 0
	for i, ls := range all {
		mark := "[ ]"
		state := w.steps(p.Steps(ls.Name), len(ls.Steps))
		if p.Done(ls.Name) {
			mark, state, done = "[x]", w.t("done"), done+1
		}
		fmt.Fprintf(out, "%2d %s %-11s %-10s %s\n", i+1, mark, ls.Name, state, ls.Title)
	}
	fmt.Fprintln(out, w.t("%d of %d done · outboxlab --lesson NAME opens one · progress: %s", done, len(all), p.Path()))
}

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
				w := listPrinter{l, catalog.For(l)}
				if len(names) == 0 {
					fmt.Fprintln(out, w.t("progress reset for every lesson"))
				} else {
					fmt.Fprintln(out, w.t("progress reset for %s", strings.Join(names, ", ")))
				}
				return nil
			}
			printLessons(out, l, all, p)
			return nil
		},
	}
	cmd.Flags().StringVar(&lang, "lang", "", "the lessons' language: en or es (default: from LC_ALL or LANG)")
	cmd.Flags().BoolVar(&reset, "reset", false, "forget the progress of the lessons named after it, or of every lesson")
	completeFlags(cmd)
	return cmd
}
