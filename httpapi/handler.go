package httpapi

import (
	"net/http"
	"strings"
)

// NewHandler returns the API over b:
//
//	POST /payments       create a payment (with an optional Idempotency-Key)
//	GET  /payments/{id}  the payment and where its events are
//
// Every error is an RFC 9457 application/problem+json body: a method a path
// does not take is 405 with Allow, an unknown path 404.
func NewHandler(b Backend) http.Handler {
	h := &handler{backend: b}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /payments", h.createPayment)
	mux.HandleFunc("GET /payments/{id}", h.getPayment)
	// The method-less patterns catch what the ones above leave: ServeMux's
	// own 405 is text/plain, and every answer here is problem+json.
	mux.HandleFunc("/payments", methodNotAllowed(http.MethodPost))
	mux.HandleFunc("/payments/{id}", methodNotAllowed(http.MethodGet, http.MethodHead))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, http.StatusNotFound, "no such resource: the API has POST /payments and GET /payments/{id}")
	})
	return mux
}

type handler struct {
	backend Backend
}

func methodNotAllowed(allow ...string) http.HandlerFunc {
	list := strings.Join(allow, ", ")
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", list)
		writeProblem(w, http.StatusMethodNotAllowed, r.Method+" is not allowed here; allowed: "+list)
	}
}
