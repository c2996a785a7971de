// Package timeline is the timeline pane: the simulation's entries, newest
// last (who, at which checkpoint, which named statement ran and why it
// matters), scrolled and selected by keys, with the selected entry's SQL
// below them. The root feeds it what the simulation recorded (EntriesMsg)
// and where the session forked (ForkMsg); the pane asks the root for a
// rewind or an entry's story by the messages its keys return.
package timeline
