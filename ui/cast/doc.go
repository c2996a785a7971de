// Package cast records a terminal program's screen as an asciicast v2
// file (--record): it stands in for the terminal as the program's output,
// passing every write and the terminal's size through, and records what a
// terminal shows, each resize too, for asciinema or svg-term to replay.
package cast
