// Package httpapi is the HTTP API of the design outboxlab teaches: the
// request a workshop sends with curl runs the real transactional outbox
// writer, and its answer is the one a real client gets.
//
//	POST /payments
//	  Content-Type: application/json   or a +json type, charset UTF-8 if any; none
//	                              is taken as JSON (RFC 9110 8.3), any other is 415
//	  Idempotency-Key: k1         optional; a token or a "quoted string", ≤ 255 bytes,
//	                              scoped to client_id
//	  traceparent: 00-…-…-01      optional W3C Trace Context; an invalid one is ignored
//	  {"client_id": "acme", "amount_cents": 1250, "currency": "EUR"}
//
//	  client_id     string, 1–64 characters, no control characters
//	  amount_cents  integer > 0, in the currency's minor unit (1250 = 12.50 EUR)
//	  currency      an ISO 4217 code (golang.org/x/text/currency's table and the
//	                codes added since), in capitals: EUR
//	  text          UTF-8; a lone surrogate escape ("\ud800") is refused, not
//	                made U+FFFD as encoding/json would
//
//	  201  {"payment_id", "event_id", "client_id", "amount_cents", "currency", "created_at"}
//	       Location: /payments/{payment_id}
//	       the same key and body again: the stored response, the same status and
//	       bytes, with Idempotent-Replayed: true; concurrent ones make one payment
//	  400  malformed JSON, an unknown, repeated, missing or bad member, text
//	       that is not Unicode (named by its member), a bad key
//	  408  the body did not arrive within ReadTimeout (the connection is closed)
//	  413  a body over 64 KiB
//	  415  a Content-Type that is not JSON (Accept-Post: application/json)
//	  422  the key was used with another body
//	  503  the database was unreachable (Retry-After), or a COMMIT's outcome
//	       is unknown: retry with the same key
//	  409, 500, 504  a row in the way without a record, a defect, a timeout
//	  no response at all: the API died mid-request (a crash the simulator
//	  injects; curl says "(56) Recv failure: Connection reset by peer"); a
//	  retry with the same key finds what committed (S21)
//
//	GET /payments/{id}
//	  200  the payment and each of its events: state pending | leased
//	       (leased_by, the relay's worker id, and leased_until) | lease_expired
//	       | published (published_at) | dead_lettered, and applied_by: the
//	       consumers whose inbox holds it
//	  400  an id that is not a UUID; 404 no such payment
//
// Every error is RFC 9457 application/problem+json; a 400's errors member
// names each fault by the body member's JSON Pointer or the header:
//
//	{"type": "about:blank", "title": "Bad Request", "status": 400,
//	 "detail": "the request is not a valid payment: see errors",
//	 "errors": [{"pointer": "/amount_cents", "detail": "must be positive"}]}
//
// A workshop's first requests:
//
//	curl -i localhost:8080/payments -H 'Idempotency-Key: k1' \
//	     -H 'Content-Type: application/json' \
//	     -d '{"client_id": "acme", "amount_cents": 1250, "currency": "EUR"}'
//	curl -i localhost:8080/payments/PAYMENT_ID
//
// (curl -d alone sends application/x-www-form-urlencoded, which is 415: the
// header says the body is JSON. curl 7.82 and later have --json for both.)
//
// Every server runs with the deadlines of NewServer (ReadHeaderTimeout,
// ReadTimeout, WriteTimeout, IdleTimeout), so a slow or silent client
// cannot hold a connection.
//
// The handlers call a Backend: DBBackend runs engine.Writer on a real
// database; a simulator provides another that makes each request the api
// actor's work, paused, stepped and crashed at its checkpoints.
package httpapi
