// Package importtest checks the import graph from a test: which packages
// a package links (go list -deps, tests not included), so that an arrow
// the design forbids (the deployment importing the simulator, the
// simulator's screen linking NATS) fails a test when it comes back.
package importtest
