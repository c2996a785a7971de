// Package simhttp puts the simulator behind HTTP (--http under the TUI and
// serve --http): an httpapi.Listener whose POST /payments becomes the api
// actor's work in the simulation, waiting in its queue for whoever drives
// it, with a ticket per request that the driver answers (Server.Answer);
// GET /metrics the simulation's figures (telemetry, read through Figures,
// the simulator's adapter); and /faults/… the driver's to do, or a 404
// saying where the faults are. A deployment serves on an httpapi.Listener
// of its own and needs none of this: the simulator is above the engine,
// not below it.
package simhttp
