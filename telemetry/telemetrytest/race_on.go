//go:build race

package telemetrytest

// raceDetector: the race detector slows the code it instruments from 2 to
// 20 times (its documentation), so a timed bound is scaled under it; the
// bound is the product's without it.
const raceDetector = true
