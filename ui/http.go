package ui

import "github.com/outboxlab/outboxlab/simhttp"

// httpRequestMsg is a POST /payments (--http) waiting for the api: the
// model makes it a request command the session logs, with its ticket.
type httpRequestMsg simhttp.Request

// listenHTTP opens --http's listener before the screen opens: a bad address
// or a port in use is bad input (httpapi.Listen's errors say so already).
func listenHTTP(addr string) (*simhttp.Server, error) {
	return simhttp.Listen(addr)
}
