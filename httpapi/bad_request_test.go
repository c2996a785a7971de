package httpapi

import (
	"bytes"
	"fmt"
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
		{"not UTF-8", "{\"client_id\": \"\xff\", \"amount_cents\": 1, \"currency\": \"EUR\"}", nil, []string{"/client_id"}},
		{"not UTF-8: a surrogate encoded in UTF-8", "{\"client_id\": \"a\xed\xa0\x80\", \"amount_cents\": 1, \"currency\": \"EUR\"}", nil, []string{"/client_id"}},
		{"not UTF-8 in a currency", "{\"client_id\": \"acme\", \"amount_cents\": 1, \"currency\": \"EU\xc3\"}", nil, []string{"/currency"}},
		{"not UTF-8 in an unknown member's array", "{\"client_id\": \"acme\", \"amount_cents\": 1, \"currency\": \"EUR\", \"x\": [\"\xfe\"]}", nil, []string{"/x"}},
		{"not UTF-8 in a member name", "{\"client_id\": \"acme\", \"amount_cents\": 1, \"currency\": \"EUR\", \"\xff\": 1}", nil, []string{""}},
		{"not UTF-8 outside a string", "{\"client_id\": \"acme\", \xff}", nil, []string{""}},
		{"a lone high surrogate", `{"client_id": "ac\ud800me", "amount_cents": 1250, "currency": "EUR"}`, nil, []string{"/client_id"}},
		{"a lone low surrogate", `{"client_id": "\udc00", "amount_cents": 1250, "currency": "EUR"}`, nil, []string{"/client_id"}},
		{"a high surrogate at the end", `{"client_id": "acme\uD83D", "amount_cents": 1250, "currency": "EUR"}`, nil, []string{"/client_id"}},
		{"a high surrogate then another", `{"client_id": "\ud83d\ud83d", "amount_cents": 1250, "currency": "EUR"}`, nil, []string{"/client_id"}},
		{"a pair reversed", `{"client_id": "\ude00\ud83d", "amount_cents": 1250, "currency": "EUR"}`, nil, []string{"/client_id"}},
		{"a lone surrogate in a member name", `{"client_id": "acme", "amount_cents": 1250, "currency": "EUR", "\ud800": 1}`, nil, []string{""}},
		{"a lone surrogate in a currency", `{"client_id": "acme", "amount_cents": 1250, "currency": "\ud800"}`, nil, []string{"/currency"}},
		{"currency not in ISO 4217", `{"client_id": "acme", "amount_cents": 1250, "currency": "ZZZ"}`, nil, []string{"/currency"}},
		{"currency not in ISO 4217, escaped", `{"client_id": "acme", "amount_cents": 1250, "currency": "\u0041BC"}`, nil, []string{"/currency"}},
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

// What is Unicode and ISO 4217 passes: a surrogate pair (an emoji), an
// escaped backslash before "ud800" (text, not an escape), U+FFFD sent as
// such, and currencies from x/text's table and from after it.
func TestUnicodeAndCurrenciesAccepted(t *testing.T) {
	t.Parallel()
	b := setup(t, DBConfig{})
	for i, tc := range []struct{ clientID, currency, want string }{
		{`"\ud83d\ude00"`, `"EUR"`, "\U0001F600"},
		{`"\\ud800"`, `"USD"`, `\ud800`},
		{`"a\uFFFD"`, `"JPY"`, "a\uFFFD"},
		{`"a\u00e9"`, `"VES"`, "aé"},
		{`"b"`, `"\u0043HF"`, "b"},
		{`"c"`, `"XCG"`, "c"},
	} {
		body := fmt.Sprintf(`{"client_id": %s, "amount_cents": %d, "currency": %s}`, tc.clientID, 100+i, tc.currency)
		if c := mustCreated(t, b.post(t, body)); c.ClientID != tc.want {
			t.Errorf("%s: client_id %q, want %q", body, c.ClientID, tc.want)
		}
	}
}

// 415: a body that says it is not JSON is refused before it is read, as
// problem+json with Accept-Post; application/json with or without a UTF-8
// charset and a +json type are JSON, and so is a body with no Content-Type
// (RFC 9110 lets the recipient look; it is parsed as JSON).
func TestContentTypeMustBeJSON(t *testing.T) {
	t.Parallel()
	b := setup(t, DBConfig{})
	for i, tc := range []struct {
		contentType []string
		status      int
	}{
		{[]string{"text/plain"}, http.StatusUnsupportedMediaType},
		{[]string{"text/plain; charset=utf-8"}, http.StatusUnsupportedMediaType},
		{[]string{"application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType}, // curl -d
		{[]string{"multipart/form-data; boundary=x"}, http.StatusUnsupportedMediaType},
		{[]string{"application/xml"}, http.StatusUnsupportedMediaType},
		{[]string{"text/json"}, http.StatusUnsupportedMediaType},
		{[]string{"application/json; charset=iso-8859-1"}, http.StatusUnsupportedMediaType},
		{[]string{"json"}, http.StatusUnsupportedMediaType},
		{[]string{""}, http.StatusUnsupportedMediaType},
		{[]string{"application/json", "application/json"}, http.StatusUnsupportedMediaType},
		{[]string{"application/json"}, http.StatusCreated},
		{[]string{"Application/JSON; charset=UTF-8"}, http.StatusCreated},
		{[]string{"application/json;charset=utf-8"}, http.StatusCreated},
		{[]string{"application/json;"}, http.StatusCreated},
		{[]string{"application/vnd.acme.payment+json"}, http.StatusCreated},
		{nil, http.StatusCreated},
	} {
		var headers []string
		for _, ct := range tc.contentType {
			headers = append(headers, "Content-Type", ct)
		}
		r := b.post(t, fmt.Sprintf(`{"client_id": "ct", "amount_cents": %d, "currency": "EUR"}`, 100+i), headers...)
		if tc.status == http.StatusCreated {
			mustCreated(t, r)
			continue
		}
		mustProblem(t, r, tc.status)
		if got := r.header.Get("Accept-Post"); got != "application/json" {
			t.Errorf("Content-Type %q: Accept-Post %q, want application/json", tc.contentType, got)
		}
	}
	if n := b.count(t, "SELECT count(*) FROM payments"); n != 6 {
		t.Errorf("%d payments, want the 6 sent as JSON", n)
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
