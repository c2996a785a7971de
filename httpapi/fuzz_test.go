package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzContentTypes are what the fuzzer's contentType picks from; the first
// ones are JSON (see jsonCount), the rest are refused with 415.
var fuzzContentTypes = []string{
	"", // no Content-Type: taken as JSON
	"application/json",
	"application/json; charset=utf-8",
	"application/problem+json",
	"text/plain",
	"application/x-www-form-urlencoded",
	"application/json; charset=latin1",
	"text/json",
}

const jsonCount = 4

// FuzzCreatePayment sends arbitrary bodies to POST /payments over the
// listener, against the database: whatever the body, the API answers 201
// with a payment, or 400, 413, 415 or 422 as problem+json whose status
// member is the status; it never panics, never 500s. keyed picks no key or
// one of two shared keys, so replays and 422s happen too. padKiB appends
// that many KiB of spaces (valid after JSON): past 64 the body is too
// large. A padding rather than large bodies in the corpus, because the
// fuzzer minimises every new input one request per try, and from 64 KiB of
// bytes that takes minutes. contentType picks a Content-Type: 415 exactly
// for those that are not JSON. A 201 never stores text the body did not
// hold: the body was UTF-8, and a U+FFFD in the payment was sent as one
// (encoding/json makes one of invalid UTF-8 and of a lone surrogate
// escape), and its currency is in ISO 4217.
func FuzzCreatePayment(f *testing.F) {
	for _, seed := range []string{
		validBody,
		`{"client_id": "acme", "amount_cents": 1251, "currency": "EUR"}`,
		`{"client_id": "a", "amount_cents": 9223372036854775807, "currency": "USD"}`,
		`{"client_id": "acme", "amount_cents": 12.5, "currency": "EUR"}`,
		`{"client_id": "acme", "amount_cents": 1250, "currency": "EUR", "x": [1, {"y": null}]}`,
		`{"client_id": "acme", "amount_cents": 1250, "currency": "EUR", "client_id": "b"}`,
		`{"client_id": "\u00e9\ud83d\ude00", "amount_cents": 1, "currency": "JPY"}`,
		`{"client_id": "acme", "amount_cents": 1, "currency": "ZZZ"}`,
		`{"client_id": "acme", "amount_cents": 1, "currency": "VES"}`,
		`{"client_id": "acme", "amount_cents": 1, "currency": "\u0045UR"}`,
		`{"client_id": "ac\ud800me", "amount_cents": 1, "currency": "EUR"}`,
		`{"client_id": "\udc00\ud800", "amount_cents": 1, "currency": "EUR"}`,
		`{"client_id": "\\ud800", "amount_cents": 1, "currency": "EUR"}`,
		`{"client_id": "\ufffd", "amount_cents": 1, "currency": "EUR"}`,
		`{"client_id": "acme", "amount_cents": 1, "currency": "EUR", "\ud83d": 1}`,
		"{\"client_id\": \"ac\xffme\", \"amount_cents\": 1, \"currency\": \"EUR\"}",
		"{\"client_id\": \"\xed\xa0\x80\", \"amount_cents\": 1, \"currency\": \"EUR\"}",
		"{\"client_id\": \"acme\", \"amount_cents\": 1, \"currency\": \"EUR\", \"\xc3\": 1}",
		`{"client_id": "acme"`, `[]`, `null`, `"x"`, `1`, ``, "\xff\xfe", `{} {}`,
	} {
		for keyed := range uint8(3) {
			f.Add([]byte(seed), keyed, uint8(0), uint8(0))
		}
		for ct := range uint8(len(fuzzContentTypes)) {
			f.Add([]byte(seed), uint8(0), uint8(0), ct)
		}
	}
	f.Add([]byte(validBody), uint8(1), uint8(63), uint8(1))
	f.Add([]byte(validBody), uint8(1), uint8(64), uint8(1))
	b := setup(f, DBConfig{})
	f.Fuzz(func(t *testing.T, body []byte, keyed, padKiB, contentType uint8) {
		var headers []string
		if k := keyed % 3; k > 0 {
			headers = []string{"Idempotency-Key", []string{"", "fuzz-a", "fuzz-b"}[k]}
		}
		ct := int(contentType) % len(fuzzContentTypes)
		if ct > 0 {
			headers = append(headers, "Content-Type", fuzzContentTypes[ct])
		}
		sent := append(body[:len(body):len(body)], bytes.Repeat([]byte{' '}, int(padKiB)<<10)...)
		r := b.do(t, http.MethodPost, "/payments", bytes.NewReader(sent), headers...)
		switch r.status {
		case http.StatusCreated:
			c := mustCreated(t, r)
			if !utf8.Valid(sent) {
				t.Fatalf("body %q is not UTF-8, and made a payment: %s", body, r.body)
			}
			if strings.ContainsRune(c.ClientID, utf8.RuneError) && !bytes.Contains(body, []byte("\uFFFD")) && !bytes.Contains(bytes.ToLower(body), []byte(`\ufffd`)) {
				t.Fatalf("body %q: client_id %q holds a U+FFFD the body did not send", body, c.ClientID)
			}
			if !isISO4217(c.Currency) {
				t.Fatalf("body %q: currency %q is not ISO 4217", body, c.Currency)
			}
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity, http.StatusUnsupportedMediaType:
			mustProblem(t, r, r.status)
		default:
			t.Fatalf("body %q + %d KiB: status %d, want 201, 400, 413, 415 or 422: %s", body, padKiB, r.status, r.body)
		}
		if notJSON := ct >= jsonCount; notJSON != (r.status == http.StatusUnsupportedMediaType) {
			t.Fatalf("Content-Type %q: status %d", fuzzContentTypes[ct], r.status)
		}
		if tooLarge := len(sent) > MaxBodyBytes; ct < jsonCount && tooLarge != (r.status == http.StatusRequestEntityTooLarge) {
			t.Fatalf("body of %d bytes: status %d", len(sent), r.status)
		}
		if r.status == http.StatusBadRequest {
			var p problem
			_ = json.Unmarshal(r.body, &p)
			if len(p.Errors) == 0 {
				t.Fatalf("body %q: a 400 naming no fault: %s", body, r.body)
			}
		}
	})
}
