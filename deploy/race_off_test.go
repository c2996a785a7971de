//go:build !race

package deploy

// raceDetector: see race_on_test.go.
const raceDetector = false
