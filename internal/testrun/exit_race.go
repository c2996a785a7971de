//go:build race

package testrun

import (
	"os"
	"syscall"
)

// exit skips os.Exit's race detector finalisation when the tests passed
// (see Exit): syscall.Exit ends the process as it is.
func exit(code int) {
	if code == 0 {
		syscall.Exit(0)
	}
	os.Exit(code)
}
