package workshop

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/lessons"
)

// errUnknownLearner says an id names no learner of the room.
var errUnknownLearner = errors.New("no such learner")

// SendLesson sends the learners named (every connected one with none) to
// a lesson of the course, at its first step. A learner named who is not
// connected goes there when they come back, and is told so.
func (r *Room) SendLesson(name string, ids ...string) error {
	if _, err := lessons.Find(r.course, name); err != nil {
		return err
	}
	for _, p := range r.programs(ids) {
		p.Send(openLessonMsg{name})
	}
	r.mu.Lock()
	var away []*learner
	for _, id := range ids {
		if l := r.learners[id]; l != nil && l.program == nil {
			away = append(away, l)
		}
	}
	r.mu.Unlock()
	for _, l := range away {
		// Their place is what a reconnection resumes at (resume).
		l.savePlace(place{Lesson: name})
		r.mu.Lock()
		l.told = append(l.told, r.movedWords(wordsFor(r.cfg.Lang), name))
		r.mu.Unlock()
	}
	return nil
}

// movedWords is the notice of a move to lesson name, in w's language.
func (r *Room) movedWords(w words, name string) string {
	return fmt.Sprintf(w.moved, r.lessonIndex(name)+1, name)
}

// Pause shows every learner msg over their simulator until Pause("")
// resumes the room; a learner who connects meanwhile sees it too.
func (r *Room) Pause(msg string) { r.pause(msg, false) }

// PauseStandard pauses the room with no message of the instructor's:
// each learner reads that the room is paused in their own language.
func (r *Room) PauseStandard() { r.pause(wordsFor(r.cfg.Lang).pausedShort, true) }

func (r *Room) pause(msg string, standard bool) {
	r.mu.Lock()
	r.paused, r.pausedStandard = msg, standard && msg != ""
	r.mu.Unlock()
	out := pauseMsg{text: msg}
	if standard {
		out = pauseMsg{standard: true}
	}
	for _, p := range r.programs(nil) {
		p.Send(out)
	}
	r.poke()
}

// pauseNow is the pause a learner who connects now gets.
func (r *Room) pauseNow() pauseMsg {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pausedStandard {
		return pauseMsg{standard: true}
	}
	return pauseMsg{text: r.paused}
}

// CloseIn tells every learner the room closes in d (the instructor's
// confirmed q), or with d zero that it no longer does.
func (r *Room) CloseIn(d time.Duration) {
	var at time.Time
	if d > 0 {
		at = time.Now().Add(d)
	}
	r.mu.Lock()
	r.closeAt = at
	r.mu.Unlock()
	for _, p := range r.programs(nil) {
		p.Send(closingMsg{at})
	}
	r.poke()
}

// closingAt is when the room closes, zero when it does not.
func (r *Room) closingAt() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closeAt
}

// End ends a learner's session the way their own q does: their terminal
// is left as it was before ssh.
func (r *Room) End(id string) error {
	r.mu.Lock()
	l := r.learners[id]
	var end context.CancelFunc
	var p *tea.Program
	if l != nil {
		end, p = l.end, l.program
	}
	r.mu.Unlock()
	if l == nil {
		return errUnknownLearner
	}
	if p != nil {
		p.Quit()
	} else if end != nil {
		end()
	}
	return nil
}

// Remove takes a learner who left off the room's list; their progress
// stays, and they are back on it when they connect again.
func (r *Room) Remove(id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.learners[id]
	if l == nil {
		return errUnknownLearner
	}
	if l.active {
		return fmt.Errorf("%s is connected", id)
	}
	delete(r.learners, id)
	r.poke()
	return nil
}

// RaiseHand raises the learner's hand, with what they said (may be "").
func (r *Room) RaiseHand(l *learner, text string) {
	r.mu.Lock()
	l.hand, l.handText = r.now(), text
	l.hands++
	l.saveStats()
	r.mu.Unlock()
	r.poke()
}

// AnswerHand lowers a learner's hand; they are told the instructor saw it.
func (r *Room) AnswerHand(id string) {
	r.mu.Lock()
	l := r.learners[id]
	if l == nil || l.hand.IsZero() {
		r.mu.Unlock()
		return
	}
	l.hand, l.handText = time.Time{}, ""
	p := l.program
	w := r.wordsOf(l)
	r.mu.Unlock()
	if p != nil {
		p.Send(noticeMsg{w.handSeen})
	}
	r.poke()
}

// Watch starts (or with on false stops) the instructor's look over a
// learner's shoulder; the learner is told.
func (r *Room) Watch(id string, on bool) {
	r.mu.Lock()
	l := r.learners[id]
	if l == nil {
		r.mu.Unlock()
		return
	}
	l.watched = on
	p := l.program
	w := r.wordsOf(l)
	r.mu.Unlock()
	if p != nil && on {
		p.Send(noticeMsg{w.watching})
	}
}

func (r *Room) isWatched(l *learner) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return l.watched
}

// drawn keeps the learner's screen as last drawn, for the instructor's
// look over their shoulder.
func (r *Room) drawn(l *learner, frame string) {
	r.mu.Lock()
	l.frame = frame
	r.mu.Unlock()
}

// Frame is a learner's screen as last drawn ("" when none was).
func (r *Room) Frame(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if l := r.learners[id]; l != nil {
		return l.frame
	}
	return ""
}

// wordsOf is a learner's language's words (the room's before their
// session said); r.mu held.
func (r *Room) wordsOf(l *learner) words {
	if l.words.title == "" {
		return wordsFor(r.cfg.Lang)
	}
	return l.words
}

// Say puts a line of the instructor's on every connected learner's screen
// for a while, without pausing the room.
func (r *Room) Say(text string) {
	for _, p := range r.programs(nil) {
		p.Send(noticeMsg{"» " + text})
	}
}
