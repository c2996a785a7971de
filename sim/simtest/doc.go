// Package simtest gives a package's tests simulations on pgtest's shared
// server that they share: a test's simulation is parked when it is done
// with it (sim.Sim.Park) and the next test renews it (Sim.Renew,
// sim.RunSceneOn) instead of building new databases and a backend per
// actor, tens of milliseconds of server CPU each. A renewed run is the run
// a new simulation makes (sim's TestRunSceneOnARenewedSimIsRunScene).
//
// The package's TestMain must be pgtest.Main, which closes and drops them.
package simtest
