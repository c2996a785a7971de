//go:build !unix

package testdir

import "os"

func tryExclusive(*os.File) error { return errNoFlock }

// stopServersIn stops nothing where there is no flock: nothing is swept.
func stopServersIn(string) {}
