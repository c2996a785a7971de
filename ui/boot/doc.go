// Package boot is the boot screen, the simulator's first: PostgreSQL's
// boot steps with a spinner while the server starts, or the boot error in
// the learner's language as doctor prints it. The root boots the server
// and sends each step into the pane's Progress as it begins (ProgressMsg
// comes back, the pane waiting for the next), then the result (DoneMsg).
package boot
