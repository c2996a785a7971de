// Package wallsim runs a simulation on wall time with no screen, for
// `outboxlab serve --http` (the in-process broker): HTTP requests are the
// api actor's work as in the TUI, and the relay and consumers run on their
// own as wall time passes, so a workshop's curl and load see something
// like a deployment, and /metrics its backlog. It is the simulator (sim,
// on its virtual clock moved along with the wall's), not the deployment:
// `outboxlab live` and serve --broker nats run the engine for real
// (package deploy).
package wallsim
