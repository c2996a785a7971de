package sim

import (
	"context"

	"github.com/outboxlab/outboxlab/scenes"
)

// control is a session's run control: the script n plays next (a scene's
// commands, or a played lesson step's solution) and the scripted run or
// drain under way, which the screen plays out a step at a time so every
// step shows. It lives beside the log it feeds, so a rewind puts the
// script back where it stood.
type control struct {
	script   []scenes.Step
	cursor   int         // commands of the script played
	run      string      // "run" or "drain" while a scripted one plays out
	quiet    bool        // the last step of the drain under way found nothing to move
	scriptAt []playState // where the script stood after each command of the log
}

// playState is where the script stands: a rewind restores it.
type playState struct {
	cursor int
	run    string
	quiet  bool
}

// Unit is one unit of play: the command Play did, and where it came from.
type Unit struct {
	Step   scenes.Step // scenes.Next for a step of the scheduler's choice
	Script bool        // it came from the script
	InRun  bool        // a step of a scripted run or drain
}

// SetScript gives the session the script n plays next, from its start; a
// run under way ends.
func (se *Session) SetScript(steps []scenes.Step) {
	se.mu.Lock()
	defer se.mu.Unlock()
	se.script = append([]scenes.Step(nil), steps...)
	se.cursor, se.run, se.quiet = 0, "", false
}

// Play does one unit of play: the next step of the scripted run or drain
// under way (a drain that has gone quiet restarts a crashed actor, as a
// supervisor would, then drains to move the clock), else the script's next
// command (a run or drain begins with one step), else one step of the
// scheduler's choice. moved reports whether anything moved.
func (se *Session) Play(ctx context.Context) (u Unit, moved bool, err error) {
	se.mu.Lock()
	defer se.mu.Unlock()
	u = se.nextUnit()
	at := se.at
	moved, err = se.do(ctx, u.Step)
	se.settle(u, moved, err)
	if se.at == at+1 { // logged: the point keeps the state after the unit
		se.scriptAt[at] = playState{se.cursor, se.run, se.quiet}
	}
	return u, moved, err
}

func (se *Session) nextUnit() Unit {
	if se.run != "" {
		if se.quiet && se.run == scenes.CmdDrain {
			for _, a := range se.sim.Actors() {
				if a.State == Crashed {
					return Unit{Step: scenes.Restart(a.Name), Script: true, InRun: true}
				}
			}
			return Unit{Step: scenes.Drain, Script: true, InRun: true}
		}
		return Unit{Step: scenes.Next, Script: true, InRun: true}
	}
	if se.cursor < len(se.script) {
		st := se.script[se.cursor]
		se.cursor++
		if st.Cmd == scenes.CmdRun || st.Cmd == scenes.CmdDrain {
			se.run, se.quiet = st.Cmd, false
			return Unit{Step: scenes.Next, Script: true, InRun: true}
		}
		return Unit{Step: st, Script: true}
	}
	return Unit{Step: scenes.Next}
}

// settle moves the run under way on after a unit: a run ends when nothing
// moves; a drain goes quiet first (then restarts and drains), and ends with
// its drain; an error ends either.
func (se *Session) settle(u Unit, moved bool, err error) {
	if !u.InRun {
		return
	}
	switch {
	case err != nil:
		se.run = ""
	case u.Step.Cmd == scenes.CmdDrain:
		se.run, se.quiet = "", false
	case u.Step.Cmd != scenes.CmdNext: // a restart: go on stepping
		se.quiet = false
	case !moved && se.run == scenes.CmdRun:
		se.run = ""
	case !moved:
		se.quiet = true
	default:
		se.quiet = false
	}
}
