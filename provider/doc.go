// Package provider is a third party in-process: a card provider a consumer
// charges over HTTP (S19, external effects). It is a real net/http server on
// loopback with its own store, the tables of the provider schema
// (pg/schema/005_provider.sql), so that what it charged is read with SQL and
// a reset empties it with the rest of the simulation.
//
// It does what real providers do with an Idempotency-Key header (as Stripe
// does): the first request with a key charges and its answer is kept; every
// later request with that key gets the first answer again and charges
// nothing; a request without a key always charges. That key is the only
// thing that can make a call the consumer repeats after a crash harmless:
// the consumer's inbox marker is in its own database, and no transaction
// spans the provider's.
package provider
