//go:build !race

package telemetry_test

// raceDetector: see race_on_test.go.
const raceDetector = false
