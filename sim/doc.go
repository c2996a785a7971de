// Package sim is the simulator's controller: it runs the engine's actors on
// their own connections, parks them at every checkpoint, and moves exactly
// one at a time — by the scheduler's seeded choice or the learner's — while
// faults are applied at checkpoints, a virtual clock carries time, a timeline
// records every step and an oracle checks the guarantees against the real
// database. It runs headless: the TUI and the scene runner both drive it.
package sim
