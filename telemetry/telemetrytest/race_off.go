//go:build !race

package telemetrytest

// raceDetector: see race_on.go.
const raceDetector = false
