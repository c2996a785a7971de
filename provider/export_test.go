package provider

import (
	"net/http"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/outboxlab/outboxlab/httpapi/deadline"
)

// StartWith is Start with the deadlines d, for a test that waits them out.
func StartWith(pool *pgxpool.Pool, clock Clock, d deadline.Deadlines) (*Server, error) {
	return start(pool, clock, d)
}

// HTTPServer is the server Start runs, for a check of its deadlines.
func (s *Server) HTTPServer() *http.Server { return s.srv }
