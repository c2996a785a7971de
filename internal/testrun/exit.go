package testrun

// Exit ends a test binary with code, the result of m.Run: call it from
// TestMain in place of os.Exit.
//
// Built with -race, a test binary that passed exits at once. os.Exit would
// first let the race detector finish, and the detector waits a second
// (GORACE's atexit_sleep_ms, 1000 by default) for goroutines still
// running to report: a second of every package's run in `go test -race
// ./...`, thirty of them in this module, which go test runs two at a time
// on two cores. Nothing is lost by not waiting: a race during a test fails
// that test, and one outside the tests fails m.Run ("race detected outside
// of test execution"), so code is not 0 and the detector's own ending runs.
// Coverage is written by m.Run, before this.
func Exit(code int) {
	exit(code)
}
