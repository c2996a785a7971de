//go:build !unix

package testdir

import (
	"errors"
	"os"
)

// Without flock no seed cluster is shared between test binaries: every
// test server boots cold.
var errNoFlock = errors.New("no flock here")

func openLock(string) (*os.File, error) { return nil, errNoFlock }
func lockShared(*os.File) error         { return errNoFlock }
func lockExclusive(*os.File) error      { return errNoFlock }
func unlock(*os.File) error             { return errNoFlock }
