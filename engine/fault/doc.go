// Package fault is the one vocabulary of faults: what a scene, a chaos
// schedule, the faults API and a key press do to a pipeline, by the word
// each of them writes. It sits beside the engine and imports nothing of the
// module, so both wings (the simulator and the deployment) and httpapi use
// the same type.
package fault
