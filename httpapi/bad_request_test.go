package httpapi

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// 400: every fault is named, by the body member's JSON Pointer or the
// header, and nothing reaches the database.
func TestBadRequests(t *testing.T) {
	t.Parallel()
	b := setup(t, DBConfig{})
	long := strings.Repeat("x", 256)
	cases := []struct {
		name, body string
		headers    []string
		want       []string // what the errors name, sorted
	}{
		{"empty body", ``, nil, []string{""}},
		{"malformed JSON", `{"client_id": "acme",`, nil, []string{""}},
		{"syntax error", `{"client_id": acme}`, nil, []string{""}},
		{"an array", `[1, 2]`, nil, []string{""}},
		{"null", `null`, nil, []string{""}},
		{"a second value after the object", validBody + ` {}`, nil, []string{""}},
		{"not UTF-8", "{\"client_id\": \"\xff\", \"amount_cents\": 1, \"currency\": \"EUR\"}", nil, []string{""}},
		{"empty object", `{}`, nil, []string{"/amount_cents", "/client_id", "/currency"}},
		{"unknown member", `{"client_id": "acme", "amount_cents": 1250, "currency": "EUR", "amount": 12.5}`, nil, []string{"/amount"}},
		{"unknown member with a slash", `{"client_id": "acme", "amount_cents": 1250, "currency": "EUR", "a/b~": 1}`, nil, []string{"/a~1b~0"}},
		{"member named twice", `{"client_id": "acme", "amount_cents": 1250, "currency": "EUR", "amount_cents": 1}`, nil, []string{"/amount_cents"}},
		{"member names are case-sensitive", `{"Client_ID": "acme", "amount_cents": 1250, "currency": "EUR"}`, nil, []string{"/Client_ID", "/client_id"}},
		{"amount as a string", `{"client_id": "acme", "amount_cents": "1250", "currency": "EUR"}`, nil, []string{"/amount_cents"}},
		{"amount with a fraction", `{"client_id": "acme", "amount_cents": 12.5, "currency": "EUR"}`, nil, []string{"/amount_cents"}},
		{"amount with an exponent", `{"client_id": "acme", "amount_cents": 1e3, "currency": "EUR"}`, nil, []string{"/amount_cents"}},
		{"amount zero", `{"client_id": "acme", "amount_cents": 0, "currency": "EUR"}`, nil, []string{"/amount_cents"}},
		{"amount negative", `{"client_id": "acme", "amount_cents": -5, "currency": "EUR"}`, nil, []string{"/amount_cents"}},
		{"amount beyond int64", `{"client_id": "acme", "amount_cents": 9223372036854775808, "currency": "EUR"}`, nil, []string{"/amount_cents"}},
		{"amount null", `{"client_id": "acme", "amount_cents": null, "currency": "EUR"}`, nil, []string{"/amount_cents"}},
		{"currency lowercase", `{"client_id": "acme", "amount_cents": 1250, "currency": "eur"}`, nil, []string{"/currency"}},
		{"currency of four letters", `{"client_id": "acme", "amount_cents": 1250, "currency": "EURO"}`, nil, []string{"/currency"}},
		{"client empty", `{"client_id": "", "amount_cents": 1250, "currency": "EUR"}`, nil, []string{"/client_id"}},
		{"client a number", `{"client_id": 7, "amount_cents": 1250, "currency": "EUR"}`, nil, []string{"/client_id"}},
		{"client too long", `{"client_id": "` + strings.Repeat("é", 65) + `", "amount_cents": 1250, "currency": "EUR"}`, nil, []string{"/client_id"}},
		{"client with a control character", `{"client_id": "ac\u0000me", "amount_cents": 1250, "currency": "EUR"}`, nil, []string{"/client_id"}},
		{"every member wrong", `{"client_id": 1, "amount_cents": -1, "currency": "€"}`, nil, []string{"/amount_cents", "/client_id", "/currency"}},
		{"key empty", validBody, []string{"Idempotency-Key", ""}, []string{"header Idempotency-Key"}},
		{"key too long", validBody, []string{"Idempotency-Key", long}, []string{"header Idempotency-Key"}},
		{"key with a space", validBody, []string{"Idempotency-Key", "a b"}, []string{"header Idempotency-Key"}},
		{"key not ASCII", validBody, []string{"Idempotency-Key", "clé"}, []string{"header Idempotency-Key"}},
		{"key quoted, unterminated", validBody, []string{"Idempotency-Key", `"abc`}, []string{"header Idempotency-Key"}},
		{"key quoted, something after", validBody, []string{"Idempotency-Key", `"abc"d`}, []string{"header Idempotency-Key"}},
		{"two keys", validBody, []string{"Idempotency-Key", "a", "Idempotency-Key", "b"}, []string{"header Idempotency-Key"}},
		{"body and key both wrong", `{"client_id": "acme", "amount_cents": 1250}`, []string{"Idempotency-Key", ""}, []string{"/currency", "header Idempotency-Key"}},
	}
	for _, tc := range cases {
		p := mustProblem(t, b.post(t, tc.body, tc.headers...), http.StatusBadRequest)
		if got := p.names(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: errors name %q, want %q (%+v)", tc.name, got, tc.want, p.Errors)
		}
		for _, e := range p.Errors {
			if e.Detail == "" {
				t.Errorf("%s: an error without detail: %+v", tc.name, e)
			}
		}
	}
	if n := b.count(t, "SELECT count(*) FROM payments"); n != 0 {
		t.Errorf("%d payments after bad requests, want 0", n)
	}
}

// 413: a body over MaxBodyBytes, whether its length is declared or it is
// streamed without one; one byte under the limit is read and judged.
func TestBodyTooLarge(t *testing.T) {
	t.Parallel()
	b := setup(t, DBConfig{})
	big := `{"client_id": "acme", "amount_cents": 1250, "currency": "EUR", "pad": "` + strings.Repeat("x", MaxBodyBytes) + `"}`
	mustProblem(t, b.post(t, big), http.StatusRequestEntityTooLarge)
	// io.MultiReader hides the length: the request is chunked, and only
	// reading finds it too large.
	chunked := b.do(t, http.MethodPost, "/payments", io.MultiReader(strings.NewReader(big)))
	mustProblem(t, chunked, http.StatusRequestEntityTooLarge)

	atLimit := `{"client_id": "acme", "amount_cents": 1250, "currency": "EUR"}`
	atLimit += strings.Repeat(" ", MaxBodyBytes-len(atLimit))
	mustCreated(t, b.do(t, http.MethodPost, "/payments", io.MultiReader(bytes.NewReader([]byte(atLimit)))))
}

// 405 with Allow for a method a path does not take, 404 for a path the API
// does not have, both problem+json.
func TestMethodsAndPaths(t *testing.T) {
	t.Parallel()
	b := setup(t, DBConfig{})
	id := "/payments/0190a8c4-6b1e-7c3a-9f2d-1e5b7a9c3d4f"
	cases := []struct {
		method, path string
		status       int
		allow        string
	}{
		{http.MethodGet, "/payments", http.StatusMethodNotAllowed, "POST"},
		{http.MethodPut, "/payments", http.StatusMethodNotAllowed, "POST"},
		{http.MethodDelete, "/payments", http.StatusMethodNotAllowed, "POST"},
		{http.MethodPost, id, http.StatusMethodNotAllowed, "GET, HEAD"},
		{http.MethodDelete, id, http.StatusMethodNotAllowed, "GET, HEAD"},
		{http.MethodPatch, id, http.StatusMethodNotAllowed, "GET, HEAD"},
		{http.MethodGet, "/", http.StatusNotFound, ""},
		{http.MethodPost, "/payment", http.StatusNotFound, ""},
		{http.MethodGet, "/payments/", http.StatusNotFound, ""},
		{http.MethodGet, id + "/events", http.StatusNotFound, ""},
	}
	for _, tc := range cases {
		r := b.do(t, tc.method, tc.path, strings.NewReader(validBody))
		mustProblem(t, r, tc.status)
		if got := r.header.Get("Allow"); got != tc.allow {
			t.Errorf("%s %s: Allow %q, want %q", tc.method, tc.path, got, tc.allow)
		}
	}
}
