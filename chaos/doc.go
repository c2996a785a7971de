// Package chaos runs many seeded random fault schedules, written in the
// scene language, against the real engine on the embedded PostgreSQL, and
// checks the guarantees after each: the outbox chain must lose, invent and
// repeat nothing; the naive dual write's losses and phantoms are counted.
// A violation is shrunk to a small scene a learner can read and replay.
package chaos
