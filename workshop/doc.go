// Package workshop serves a room: one machine runs the simulator for every
// learner over SSH (each session the whole simulator and course on one
// shared embedded PostgreSQL, with databases and progress of its own), and
// the terminal that started it shows the instructor where each learner is.
package workshop
