package provider

import (
	"encoding/json"
	"net/http"
)

// problem is an RFC 9457 problem details object, as httpapi answers: type
// "about:blank", the status says the kind, detail this occurrence.
type problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail,omitempty"`
}

// writeProblem is the one way the provider answers an error.
func writeProblem(w http.ResponseWriter, status int, detail string) {
	body, _ := json.Marshal(problem{Type: "about:blank", Title: http.StatusText(status), Status: status, Detail: detail}) // strings and an int: cannot fail
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}
