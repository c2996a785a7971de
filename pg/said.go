package pg

import (
	"errors"
	"fmt"
)

// saidError is an error a learner meets on the boot screen, kept as its
// English format and arguments so the screen can say it in the learner's
// language (Said); Error is the English, as doctor and the CLI print it.
type saidError struct {
	format string
	args   []any
	is     error // the sentinel it matches with errors.Is
}

func (e *saidError) Error() string { return fmt.Sprintf(e.format, e.args...) }
func (e *saidError) Unwrap() error { return e.is }

// said makes a saidError matching is (nil: none).
func said(is error, format string, args ...any) error {
	return &saidError{format: format, args: args, is: is}
}

// Said is err's words as a format and its arguments, if pg made it so (ok
// false: say err.Error()).
func Said(err error) (format string, args []any, ok bool) {
	var s *saidError
	if !errors.As(err, &s) {
		return "", nil, false
	}
	return s.format, s.args, true
}
