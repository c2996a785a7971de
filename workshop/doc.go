// Package workshop serves a room: one machine runs the simulator for every
// learner, over SSH and in a browser (--web: the same program in a
// terminal in the page, xterm.js over a WebSocket), each session the whole
// simulator and course on one shared embedded PostgreSQL, with databases,
// a role and progress of its own. The terminal that started it shows the
// instructor where each learner is, who is stuck or has a hand up, and a
// learner's screen on request; /room shows the same list on a projector.
package workshop
