// Package jetstream is a real broker for the engine: NATS JetStream, either
// embedded in the process (nats-server as a library, an in-process
// connection, no port) or reached at a URL. It implements the engine's
// Publisher and Subscriber, so the relay and the consumers run on it
// unchanged.
//
// What it teaches beside the in-process broker: JetStream drops a republish
// whose Nats-Msg-Id (here the event id) it saw within its Duplicates window
// and says so in the publish ack, but that window is bounded in time. The
// same republish after the window passes the broker, and only the
// consumer's inbox, which forgets nothing it is not told to, stops it.
//
// engine does not import this package: the engine's interfaces are the
// seam, and a binary that never runs NATS need not link it.
package jetstream
