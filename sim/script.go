package sim

import (
	"fmt"
	"slices"

	"github.com/outboxlab/outboxlab/scenes"
)

// ScriptError is a command that cannot be carried out as written: an actor
// the scene does not run, `resume` of an actor that is not stalled, `capture`
// before any request. It is the script's (or the learner's) mistake, not the
// simulator's: `run` exits 2 for it, the TUI shows it and goes on.
type ScriptError struct {
	Reason string
	Say    Text // Reason as a catalog sentence, for a screen in the learner's language
}

func (e *ScriptError) Error() string { return e.Reason }

func scriptf(format string, args ...any) error {
	return &ScriptError{Reason: fmt.Sprintf(format, args...), Say: Text{Key: format, Args: args}}
}

// CheckScene refuses, before anything runs, what a scene asks that these settings
// or this server cannot do: a fault on an actor the scene does not run
// (relay-2 with relays: 1), restart-postgres on an external server.
func CheckScene(sc *scenes.Scene, set scenes.Settings, external bool) error {
	for _, st := range sc.Steps {
		if st.Cmd == scenes.CmdRestartPostgres && external {
			return scriptf("%s:%d: restart-postgres needs the embedded server; --database-url points at one outboxlab must not stop, and a data directory another outboxlab has open is that one's to restart", sc.File, st.Line)
		}
		if st.TakesActor() {
			if _, why := absence(st.Args[0], set); why != "" {
				return scriptf("%s:%d: %s: %s", sc.File, st.Line, st, why)
			}
		}
	}
	return nil
}

// absence says why an actor is not in a simulation with these settings:
// skip when it belongs to a pipeline this mode does not run (a compare scene
// run in one mode: nothing to do), else the reason it cannot be named at all.
// Both are empty when the actor runs.
func absence(actor string, set scenes.Settings) (skip, why string) {
	pipe, name := scenes.SplitActor(actor)
	if pipe != "" {
		if !slices.Contains(set.Pipelines(), pipe) {
			return fmt.Sprintf("%s does not run in %s mode: nothing to do", actor, set.Mode), ""
		}
		if !slices.Contains(set.Actors(pipe), name) {
			if _, why := absence(name, set); why != "" {
				return "", why
			}
			return "", fmt.Sprintf("the %s pipeline has no %s", pipe, name)
		}
		return "", ""
	}
	for _, kind := range set.Pipelines() {
		if slices.Contains(set.Actors(kind), name) {
			return "", ""
		}
	}
	// With every setting at its most, is it an actor of the running
	// pipelines? Then a header leaves it out; else another mode runs it.
	most := set
	most.Relays, most.Workers, most.Writers = 2, 2, 2
	inRunning, inOther := false, false
	for _, kind := range scenes.AllPipelines() {
		has := slices.Contains(most.Actors(kind), name)
		if slices.Contains(set.Pipelines(), kind) {
			inRunning = inRunning || has
		} else {
			inOther = inOther || has
		}
	}
	if inOther && !inRunning {
		return fmt.Sprintf("%s does not run in %s mode: nothing to do", name, set.Mode), ""
	}
	switch name {
	case "relay-2":
		return "", fmt.Sprintf("relay-2 does not run in this scene: it has relays: %d (add the header `relays: 2`)", set.Relays)
	case "api-2":
		return "", fmt.Sprintf("api-2 does not run in this scene: it has writers: %d (add the header `writers: 2`)", set.Writers)
	case "accounting-2":
		return "", fmt.Sprintf("accounting-2 does not run in this scene: it has workers: %d (add the header `workers: 2`)", set.Workers)
	case scenes.Sender:
		if set.Effect != "" {
			// A scene of external effects whose variant runs no sender:
			// its crash is another way's, as a compare scene's naive is.
			return fmt.Sprintf("sender does not run with effect: %s: nothing to do", set.Effect), ""
		}
		return "", "sender does not run in this scene: it has no external effect (add the header `effect: second-outbox`)"
	}
	return "", fmt.Sprintf("no actor %q in this scene (actors: %s)", name, fmt.Sprint(scenes.Actors))
}
