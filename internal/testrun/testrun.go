// Package testrun tunes how a package's test binary runs: how many tests
// at once for packages whose tests wait more than they compute
// (WaitMostly), and how it ends (Exit, from every TestMain).
package testrun

import (
	"flag"
	"runtime"
	"strconv"
)

// WaitMostly raises -test.parallel, when the command line does not give it,
// to perCPU tests a CPU (at least 4): for a package whose tests mostly wait
// on what they drive (the program under tmux, a server killed and
// restarted, a key's quiet moment) rather than on the CPU, GOMAXPROCS at
// once leaves the CPUs idle. Call it from TestMain, before m.Run.
func WaitMostly(perCPU int) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(max(4, perCPU*runtime.GOMAXPROCS(0))))
	}
}
