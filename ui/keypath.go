package ui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/ui/lesson"
	"github.com/outboxlab/outboxlab/ui/overlay/chooser"
)

// keyPath is the one table from scene commands to the keys that do them in
// the TUI: lessons' hints show it, and the test that passes every lesson by
// keys alone presses it. actors are the actors on screen (the choosers
// number them in this order), set the simulation's settings.
func keyPath(st scenes.Step, actors []sim.ActorView, set scenes.Settings) ([]string, error) {
	arg := func(i int) string {
		if i < len(st.Args) {
			return st.Args[i]
		}
		return ""
	}
	// actor is the key (or keys) that pick arg(0) in a chooser: its number,
	// then for an actor both pipelines run, which pipeline's (1 both,
	// 2 naive, 3 outbox).
	actor := func() (string, error) {
		pipe, name := scenes.SplitActor(arg(0))
		for i, a := range chooser.Actors(actors) {
			if a.Name != name {
				continue
			}
			if !a.Shared {
				return fmt.Sprint(i + 1), nil
			}
			for j, p := range chooser.PipelineChoices() {
				if p == pipe+"/" || p == "" && pipe == "" {
					return fmt.Sprintf("%d %d", i+1, j+1), nil
				}
			}
		}
		return "", fmt.Errorf("%s: no actor %q on screen", st, arg(0))
	}
	// item numbers a checkpoint in an actor's list, after first fixed items.
	item := func(first int, cp string) (string, error) {
		i := slices.Index(chooser.Checkpoints(set, arg(0)), cp)
		if i < 0 || first+i+1 > 9 {
			return "", fmt.Errorf("%s: %s is not in %s's list", st, cp, arg(0))
		}
		return fmt.Sprint(first + i + 1), nil
	}
	dialog := func(k string, first int, cp string) ([]string, error) {
		n, err := actor()
		if err != nil {
			return nil, err
		}
		keys := append([]string{k}, strings.Fields(n)...)
		if cp == "" {
			return append(keys, "1"), nil
		}
		i, err := item(first, cp)
		return append(keys, i), err
	}
	switch st.Cmd {
	case scenes.CmdRequest:
		if slices.Contains(st.Args, "poison") {
			return []string{"P"}, nil
		}
		return []string{"p"}, nil
	case scenes.CmdCapture:
		return []string{"C"}, nil
	case scenes.CmdResend:
		return []string{"i"}, nil // the learner's last p payment, by its key
	case scenes.CmdResendOther:
		return []string{"I"}, nil
	case scenes.CmdCrash:
		// "now" (or "restart", for a crashed actor) is item 1.
		if arg(1) == "at" {
			return dialog("c", 1, arg(2))
		}
		return dialog("c", 0, "")
	case scenes.CmdRestart:
		return dialog("c", 0, "")
	case scenes.CmdStall:
		return dialog("s", 0, arg(2))
	case scenes.CmdResume:
		return dialog("s", 0, "")
	case scenes.CmdStep:
		if arg(1) != "" && arg(1) != "1" {
			return nil, fmt.Errorf("%s: one step a key press (m ACTOR 1), %s times", st, arg(1))
		}
		return dialog("m", 0, "")
	case scenes.CmdFinish:
		n, err := actor()
		return append(append([]string{"m"}, strings.Fields(n)...), "2"), err
	case scenes.CmdUntil:
		return dialog("m", 2, arg(1))
	case scenes.CmdFailCommit:
		for i, kind := range set.Pipelines() {
			if f := chooser.FailCommit(kind, set); f.String() == st.String() {
				if set.Mode == "compare" {
					return []string{"f", fmt.Sprint(i + 1)}, nil // naive 1, api 2
				}
				return []string{"f"}, nil
			}
		}
		return nil, fmt.Errorf("%s: f fails the next COMMIT where the writer commits; no key arms another checkpoint", st)
	case scenes.CmdDuplicate:
		return []string{"d"}, nil
	case scenes.CmdBroker:
		return []string{"b"}, nil
	case scenes.CmdRestartPostgres:
		return []string{"R"}, nil
	case scenes.CmdAdvance:
		if d, err := time.ParseDuration(arg(0)); err == nil && d == set.Lease+time.Second {
			return []string{"t"}, nil
		}
		if i := slices.Index(chooser.AdvanceBy(), arg(0)); i >= 0 {
			return []string{"T", fmt.Sprint(i + 1)}, nil
		}
		return nil, fmt.Errorf("%s: T offers %s", st, strings.Join(chooser.AdvanceBy(), ", "))
	case scenes.CmdNext:
		n := 1
		if arg(0) != "" {
			n, _ = strconv.Atoi(arg(0))
		}
		keys := make([]string, n)
		for i := range keys {
			keys[i] = "n"
		}
		return keys, nil
	case scenes.CmdRun:
		return []string{"space"}, nil
	case scenes.CmdDrain:
		return []string{"D"}, nil
	case scenes.CmdRequeue:
		return []string{"Q"}, nil
	}
	return nil, fmt.Errorf("%s: no key does this yet", st)
}

// keyHint writes a lesson step's solution as keys, each path followed by
// what it does: in English the scene command it performs (`p` request ·
// `m 1 2` finish api · `D` drain), in another language the same said in
// its words (sayStep), keys named as that language names them.
func keyHint(w *catalog.Printer, solution []scenes.Step, actors []sim.ActorView, set scenes.Settings) string {
	var parts []string
	for _, st := range solution {
		keys, err := keyPath(st, actors, set)
		if err != nil {
			parts = append(parts, sayStep(w, st))
			continue
		}
		// No-break spaces keep a key path on one line when the pane wraps.
		parts = append(parts, fmt.Sprintf("`%s` %s", strings.Join(keyNames(w, keys), "\u00a0"), sayStep(w, st)))
	}
	return strings.Join(parts, " · ")
}

// keyNames are keys as the screen's language names them (space, espacio).
func keyNames(w *catalog.Printer, keys []string) []string {
	out := slices.Clone(keys)
	for i, k := range out {
		if k == "space" {
			out[i] = w.Word(k)
		}
	}
	return out
}

// sayStep is what a scene command does, in the printer's language: English
// keeps the command as the scene language writes it (it teaches that
// language); another language says it in words, with the names of actors,
// checkpoints and durations as the screen writes them.
func sayStep(w *catalog.Printer, st scenes.Step) string {
	if w == nil || w.Word("en") == "en" {
		return st.String()
	}
	arg := func(i int) string {
		if i < len(st.Args) {
			return st.Args[i]
		}
		return ""
	}
	switch st.Cmd {
	case scenes.CmdRequest:
		if slices.Contains(st.Args, "poison") {
			return w.T("send a poison payment")
		}
		if a := st.KV["amount"]; a != "" {
			return w.T("send a payment of %s", a)
		}
		return w.T("send a payment")
	case scenes.CmdCapture:
		return w.T("capture payment")
	case scenes.CmdResend:
		return w.T("resend same key")
	case scenes.CmdResendOther:
		return w.T("key, other body")
	case scenes.CmdCrash:
		if arg(1) == "at" {
			return w.T("crash %s at %s", arg(0), arg(2))
		}
		return w.T("crash %s now", arg(0))
	case scenes.CmdRestart:
		return w.T("restart %s", arg(0))
	case scenes.CmdStall:
		return w.T("stall %s at %s", arg(0), arg(2))
	case scenes.CmdResume:
		return w.T("resume %s", arg(0))
	case scenes.CmdStep:
		return w.T("one step of %s", arg(0))
	case scenes.CmdFinish:
		return w.T("finish %s", arg(0))
	case scenes.CmdUntil:
		return w.T("move %s until %s", arg(0), arg(1))
	case scenes.CmdFailCommit:
		return w.T("fail next commit")
	case scenes.CmdDuplicate:
		return w.T("duplicate delivery")
	case scenes.CmdBroker:
		if arg(0) == "up" {
			return w.T("broker up")
		}
		return w.T("broker down")
	case scenes.CmdRestartPostgres:
		return w.T("restart PostgreSQL")
	case scenes.CmdAdvance:
		return w.T("advance the clock %s", arg(0))
	case scenes.CmdNext:
		return w.T("step")
	case scenes.CmdRun:
		return w.T("run")
	case scenes.CmdDrain:
		return w.T("drain")
	case scenes.CmdRequeue:
		return w.T("requeue dead")
	}
	return st.String()
}

// newLessonPane is the lesson pane of scene sc, its hints' keys written by
// keyHint in the screen's language.
func newLessonPane(st *Styles, sc *scenes.Scene) lesson.Pane {
	return lesson.New(st, sc, func(solution []scenes.Step, actors []sim.ActorView, set scenes.Settings) string {
		return keyHint(st.Words, solution, actors, set)
	})
}
