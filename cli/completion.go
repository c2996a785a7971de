// `outboxlab completion bash|zsh|fish|powershell` is cobra's own command,
// and so is the hidden __complete the scripts call; what this file adds is
// what completes: scene and lesson names (run, story, play, lessons --reset,
// --scene, --lesson) and the closed lists of --mode, --lang, --broker and
// --pipeline.

package cli

import (
	"strings"

	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/spf13/cobra"
)

// completeScene completes a command's SCENE argument, with the scenes of
// --scenes DIR when given (dir points at the flag's value).
func completeScene(dir *string) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return startingWith(prefix, sceneNames(*dir)), cobra.ShellCompDirectiveNoFileComp
	}
}

// startingWith keeps the names that start with prefix: the shells filter
// too, but __complete's answer is then the short list a user sees.
func startingWith(prefix string, names []cobra.Completion) []cobra.Completion {
	var out []cobra.Completion
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// sceneNames are the scenes' names, each with its title as the shell's
// description.
func sceneNames(dir string) []cobra.Completion {
	all, err := scenes.Load(dir)
	if err != nil {
		all, _ = scenes.Load("") // a broken --scenes DIR still completes the built-in ones
	}
	var out []cobra.Completion
	for _, sc := range all {
		out = append(out, cobra.CompletionWithDesc(sc.Name, sc.Title))
	}
	return out
}

// lessonNames are the lessons' names in course order, titled in lang (the
// --lang given, or LC_ALL or LANG's).
func lessonNames(lang string) []cobra.Completion {
	l, err := langFlag(lang)
	if err != nil {
		l, _ = langFlag("")
	}
	all, _ := lessons.Load(l)
	var out []cobra.Completion
	for _, ls := range all {
		out = append(out, cobra.CompletionWithDesc(ls.Name, ls.Title))
	}
	return out
}

// completeFlags completes the values of the flags cmd has among those whose
// values are a closed list or names: --scene, --lesson, --mode, --lang,
// --broker, --pipeline.
func completeFlags(cmd *cobra.Command) {
	fixed := func(values ...string) cobra.CompletionFunc {
		return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
	}
	funcs := map[string]cobra.CompletionFunc{
		"mode":     fixed("outbox", "naive", "compare"),
		"lang":     fixed("en", "es"),
		"broker":   fixed("inprocess", "nats", "nats://"),
		"pipeline": fixed("outbox", "naive"),
		"scene": func(c *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
			dir, _ := c.Flags().GetString("scenes")
			return startingWith(prefix, sceneNames(dir)), cobra.ShellCompDirectiveNoFileComp
		},
		"lesson": func(c *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
			lang, _ := c.Flags().GetString("lang")
			return startingWith(prefix, lessonNames(lang)), cobra.ShellCompDirectiveNoFileComp
		},
	}
	for name, f := range funcs {
		if cmd.Flags().Lookup(name) != nil {
			_ = cmd.RegisterFlagCompletionFunc(name, f)
		}
	}
}
