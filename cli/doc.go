// Package cli is outboxlab's command line: one file per command, each its
// flags and the wiring to the package that does the work. Execute runs it;
// exit.go maps what a command returned to an exit code, in one place.
package cli
