package pg

import (
	"errors"

	"github.com/outboxlab/outboxlab/badinput"
)

// InputError says which input a boot failure blames: what the user pointed
// outboxlab at (--data-dir, --pg-bin or $OUTBOXLAB_PG_BIN, --database-url) or
// no PostgreSQL being found anywhere, rather than the machine failing. It
// always comes wrapped in a *badinput.Error (inputErr), which the command
// line reports as bad input (exit 2). Match it with IsInputError or
// errors.As; the wrapped error stays reachable (errors.Is(err,
// ErrNoBinaries) still holds).
type InputError struct {
	// Input names what was wrong: "--data-dir", "--pg-bin", "OUTBOXLAB_PG_BIN",
	// "--database-url", "data directory" (the default one) or "PostgreSQL binaries".
	Input string
	Err   error
}

func (e *InputError) Error() string { return e.Err.Error() }

// Unwrap exposes the cause, so sentinels such as ErrNoBinaries still match.
func (e *InputError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrBadDataDir) true for a refused data directory.
func (e *InputError) Is(target error) bool {
	return target == ErrBadDataDir && (e.Input == "--data-dir" || e.Input == "data directory")
}

// ErrBadDataDir matches (errors.Is) the InputError of a data directory
// outboxlab refuses: one holding files that are not outboxlab's, one the
// server's account cannot write, or one outboxlab cannot create.
var ErrBadDataDir = errors.New("unusable data directory")

// IsInputError reports whether err, or an error it wraps, is an InputError:
// the user's input, not the machine, is what has to change.
func IsInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}

// inputErr labels err as bad input, blaming input; nil stays nil.
func inputErr(input string, err error) error {
	if err == nil {
		return nil
	}
	return badinput.Wrap(&InputError{Input: input, Err: err})
}
