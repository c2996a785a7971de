package ui

import (
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"
)

// speeds are the autoplay rates, steps per second.
var speeds = []float64{0.5, 1, 2, 4, 8, 16}

const defaultSpeed = 2

// runState is how the run of the simulation on screen stands, apart from
// the simulation itself: the actions waiting and whether one is running
// (one simulator operation at a time, in queue order), autoplay and its
// ticks, the reads of the simulation in flight, and the notice on the
// status line. It holds no simulator and starts no command but a tick:
// the root asks it what to do and does it.
type runState struct {
	queue     []action
	busy      bool // an action is running
	resetting bool // a reset waits for the running action

	playing     bool
	tickTag     int // ticks carry it: one with an older tag is stale
	tickPending bool
	speed       int // the autoplay rate, an index into speeds

	refreshing bool // a read of the simulation is in flight
	dirty      bool // the simulation changed during it: read again
	changeGen  int

	notice    string
	stuckSaid string // the notice that nothing moves, as said: cleared by the next action
}

func newRunState() runState { return runState{speed: defaultSpeed} }

// clear readies the run for a fresh simulation: nothing queued, running,
// playing or being read; the speed stays.
func (r *runState) clear() {
	r.playing, r.tickPending, r.busy, r.queue = false, false, false, nil
	r.tickTag++
	r.refreshing, r.dirty, r.changeGen = false, false, 0
}

// idle says no action runs and none waits.
func (r runState) idle() bool { return !r.busy && len(r.queue) == 0 }

// push adds an action after those waiting; pushFirst before them.
func (r *runState) push(a action)      { r.queue = append(r.queue, a) }
func (r *runState) pushFirst(a action) { r.queue = append([]action{a}, r.queue...) }

// next takes the action to start now, if nothing runs and one waits.
func (r *runState) next() (action, bool) {
	if r.busy || len(r.queue) == 0 {
		return action{}, false
	}
	a := r.queue[0]
	r.queue = r.queue[1:]
	return a, true
}

// reset drops what waits and stops autoplay; now says the simulation can
// be rebuilt at once, else it waits for the running action (finished).
func (r *runState) reset() (now bool) {
	r.pause()
	r.queue = nil
	if r.busy {
		r.resetting = true
		return false
	}
	return true
}

// finished follows the running action's return; reset says a reset
// waited for it.
func (r *runState) finished() (reset bool) {
	r.busy = false
	reset, r.resetting = r.resetting, false
	return reset
}

// pause stops autoplay; the tick on its way is stale.
func (r *runState) pause() {
	r.playing = false
	r.tickTag++
}

// autoplay starts autoplay: the first step is the caller's to enqueue,
// each after it a tick's.
func (r *runState) autoplay() { r.playing = true }

// toggle starts autoplay or pauses it (space), and says which.
func (r *runState) toggle() (playing bool) {
	r.playing = !r.playing
	r.tickTag++
	r.tickPending = false
	return r.playing
}

// stopAutoplay stops autoplay before a rewind: the steps it queued go,
// what the learner already pressed still runs.
func (r *runState) stopAutoplay() {
	r.playing, r.queue = false, slices.DeleteFunc(r.queue, func(a action) bool { return !a.user })
	r.tickTag++
}

// ticked takes an autoplay tick: false for a stale one (paused or reset
// since).
func (r *runState) ticked(tag int) bool {
	if tag != r.tickTag || !r.playing {
		return false
	}
	r.tickPending = false
	return true
}

// nextTick is autoplay's next tick, once nothing waits (nil: none due).
func (r *runState) nextTick() tea.Cmd {
	if !r.playing || r.tickPending || len(r.queue) > 0 {
		return nil
	}
	r.tickPending = true
	return tickCmd(r.interval(), r.tickTag)
}

func (r runState) interval() time.Duration {
	return time.Duration(float64(time.Second) / speeds[r.speed])
}

// faster and slower change autoplay's rate, within speeds.
func (r *runState) faster()        { r.speed = min(len(speeds)-1, r.speed+1) }
func (r *runState) slower()        { r.speed = max(0, r.speed-1) }
func (r runState) atFastest() bool { return r.speed == len(speeds)-1 }
func (r runState) atSlowest() bool { return r.speed == 0 }
func (r runState) perSecond() float64 {
	return speeds[r.speed]
}

// read says whether to read the simulation now: false while a read is in
// flight, which then reads again when it returns (readDone).
func (r *runState) read() bool {
	if r.refreshing {
		r.dirty = true
		return false
	}
	r.refreshing = true
	return true
}

// readDone follows a read's return; again says the simulation changed
// during it.
func (r *runState) readDone() (again bool) {
	r.refreshing = false
	again, r.dirty = r.dirty, false
	return again
}

// reading says a read is in flight or due.
func (r runState) reading() bool { return r.refreshing || r.dirty }

// say puts a notice on the status line ("" clears it).
func (r *runState) say(notice string) { r.notice = notice }

// sayStuck says that nothing moves, remembered as such so that the next
// action clears it (saysStuck).
func (r *runState) sayStuck(notice string) {
	r.notice = notice
	r.stuckSaid = notice
}

// saysStuck says the notice on screen is one that nothing moves.
func (r runState) saysStuck() bool {
	return r.notice != "" && r.notice == r.stuckSaid
}
