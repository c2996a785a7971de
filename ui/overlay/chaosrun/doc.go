// Package chaosrun is the chaos overlay: a chaos run over the whole body, a
// progress bar with the runs per second and what broke so far while it
// runs, then its table as `outboxlab chaos` prints it, in the screen's
// language. The root starts the run (it holds the server) and sends its
// messages (ProgressMsg, DoneMsg) through the pane's Events, which Wait
// reads one at a time; esc stops the run, or closes the table (CloseMsg).
package chaosrun
