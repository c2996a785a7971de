// Package testrun tunes how a package's test binary runs: how many tests
// at once for packages whose tests wait more than they compute
// (WaitMostly), and how it ends (Exit, from every TestMain); how a test
// starts a process (Command), waits for a condition (Eventually,
// Awaited) and hears what runs in its background (BackgroundErrors).
package testrun
