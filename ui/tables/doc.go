// Package tables is the tables pane: one table of one pipeline, read from
// the simulation's real database a window at a time (only the rows that
// fit are fetched), the rows a change added highlighted. The root hands it
// the simulation to read (Reset) and the reads a snapshot made (ReadMsg);
// the pane's own keys read the windows they ask for themselves.
package tables
