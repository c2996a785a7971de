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
