package badinput

import (
	"errors"
	"fmt"
)

// Error is bad input; its message is the wrapped error's, unchanged.
type Error struct{ Err error }

func (e *Error) Error() string { return e.Err.Error() }

// Unwrap exposes the cause, so sentinels and detail types still match.
func (e *Error) Unwrap() error { return e.Err }

// Wrap marks err as bad input; nil stays nil.
func Wrap(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Err: err}
}

// Errorf is fmt.Errorf marked as bad input.
func Errorf(format string, a ...any) error { return &Error{Err: fmt.Errorf(format, a...)} }

// New is errors.New marked as bad input.
func New(msg string) error { return &Error{Err: errors.New(msg)} }

// Is reports whether err, or an error it wraps, is bad input.
func Is(err error) bool {
	var e *Error
	return errors.As(err, &e)
}
