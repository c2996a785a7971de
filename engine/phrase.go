package engine

import "fmt"

// Phrase is a short human sentence an actor attaches to an event: its
// English format and the arguments, kept apart so a screen can say it in
// the learner's language (the simulator looks the format up in its message
// catalog). String is the English; an argument may be a Phrase itself.
type Phrase struct {
	Format string
	Args   []any
}

// Say makes a Phrase.
func Say(format string, args ...any) Phrase { return Phrase{Format: format, Args: args} }

// String is the phrase in English.
func (p Phrase) String() string {
	if p.Format == "" {
		return ""
	}
	return fmt.Sprintf(p.Format, p.Args...)
}

// IsZero reports an event with no detail.
func (p Phrase) IsZero() bool { return p.Format == "" }
