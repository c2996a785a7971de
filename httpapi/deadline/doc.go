// Package deadline holds the deadlines of every HTTP server outboxlab runs
// and what makes a server with them (Deadlines.Server). It imports nothing
// of outboxlab's, so the provider (which the engine's tests use) and the
// API share one set without the provider importing the API, and so the
// engine.
package deadline
