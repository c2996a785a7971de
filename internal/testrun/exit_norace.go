//go:build !race

package testrun

import "os"

func exit(code int) { os.Exit(code) }
