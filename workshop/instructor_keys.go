package workshop

import (
	"strings"

	"charm.land/bubbles/v2/key"
)

// instructorKeys are the instructor's screen's keys: a set for each thing
// the screen asks (the learners' list, the lesson picker, a line typed, a
// question, a learner's screen watched), each footer drawn from its set's
// help (keyLine). A binding whose help speaks for a pair (↑/↓) lists one
// of the two; a binding with no keys says what the instructor types.
type instructorKeys struct {
	Quit key.Binding // ctrl+c leaves at once, whatever the screen asks

	// the learners' list
	Up, Down, Top, Bottom, PageUp, PageDown                                key.Binding
	Lesson, Everyone, Watch, Answer, End, Remove, Say, Pause, Report, Stop key.Binding
	CloseNow, KeepOpen                                                     key.Binding // while the room closes

	// the lesson picker: letters and digits typed filter it
	PickUp, PickDown, Filter, Erase, Send, PickCancel key.Binding

	// a line typed: the pause's message, a line said to every learner
	PauseType, PauseDone, PauseCancel key.Binding
	SayType, SayDone, SayCancel       key.Binding

	// a question: stop the room (now, or after the countdown), or yes/no
	StopYes, StopNow, StopNo key.Binding
	Yes, No                  key.Binding

	// a learner's screen watched
	Back, AnswerHand key.Binding
}

// newInstructorKeys are the instructor's keys, their help in w's language.
func newInstructorKeys(w words) instructorKeys {
	h := w.keyHelp
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	bare := func(keys ...string) key.Binding { return key.NewBinding(key.WithKeys(keys...)) }
	return instructorKeys{
		Quit: bare("ctrl+c"),

		Up:       b("↑/↓", h.choose, "up", "k"),
		Down:     bare("down", "j"),
		Top:      bare("home", "g"),
		Bottom:   bare("end", "G"),
		PageUp:   bare("pgup"),
		PageDown: bare("pgdown"),
		Lesson:   b("l", h.lesson, "l"),
		Everyone: b("L", h.everyone, "L"),
		Watch:    b("w", h.watch, "w"),
		Answer:   b("a", h.answer, "a"),
		End:      b("e", h.end, "e"),
		Remove:   b("x", h.remove, "x"),
		Say:      b("s", h.say, "s"),
		Pause:    b("p", h.pause, "p"),
		Report:   b("E", h.report, "E"),
		Stop:     b("q", h.stop, "q"),
		CloseNow: bare("q"),
		KeepOpen: bare("esc"),

		PickUp:     b("↑/↓", h.orNumber, "up"),
		PickDown:   bare("down"),
		Filter:     key.NewBinding(key.WithHelp(h.typing, h.toFilter)),
		Erase:      bare("backspace"),
		Send:       b("enter", h.send, "enter"),
		PickCancel: b("esc", h.cancel, "esc"),

		PauseType:   key.NewBinding(key.WithHelp(h.typing, h.theMessage)),
		PauseDone:   b("enter", h.pauseIt, "enter"),
		PauseCancel: b("esc", h.cancel, "esc"),
		SayType:     key.NewBinding(key.WithHelp(h.typing, h.theLine)),
		SayDone:     b("enter", h.saysIt, "enter"),
		SayCancel:   b("esc", h.cancelSay, "esc"),

		StopYes: b("y", h.stopIt, "y"),
		StopNow: b("Y", h.stopNow, "Y"),
		StopNo:  b("esc", h.cancel, "esc", "n"),
		Yes:     b("y", h.yes, "y", "enter"),
		No:      b("esc", h.no, "esc", "n"),

		Back:       b("esc", h.back, "esc", "q", "w"),
		AnswerHand: b("a", h.answerHand, "a"),
	}
}

// list is the list's footer: without E in a room that keeps no report.
func (k instructorKeys) list(report bool) []key.Binding {
	out := []key.Binding{k.Up, k.Lesson, k.Everyone, k.Watch, k.Answer, k.End, k.Remove, k.Say, k.Pause}
	if report {
		out = append(out, k.Report)
	}
	return append(out, k.Stop)
}

// The footers of the picker, a line typed, a question and a learner's
// screen watched.
func (k instructorKeys) picker() []key.Binding {
	return []key.Binding{k.PickUp, k.Filter, k.Send, k.PickCancel}
}

func (k instructorKeys) pausing() []key.Binding {
	return []key.Binding{k.PauseType, k.PauseDone, k.PauseCancel}
}

func (k instructorKeys) saying() []key.Binding {
	return []key.Binding{k.SayType, k.SayDone, k.SayCancel}
}

func (k instructorKeys) stopping() []key.Binding {
	return []key.Binding{k.StopYes, k.StopNow, k.StopNo}
}

func (k instructorKeys) confirming() []key.Binding { return []key.Binding{k.Yes, k.No} }

func (k instructorKeys) watching() []key.Binding { return []key.Binding{k.Back, k.AnswerHand} }

// keyLine is a footer's keys as the instructor's screen writes them: each
// binding's key and what it does, " · " between them.
func keyLine(bs []key.Binding) string {
	items := make([]string, len(bs))
	for i, b := range bs {
		items[i] = b.Help().Key + " " + b.Help().Desc
	}
	return strings.Join(items, " · ")
}
