package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

// FuzzCreatePayment sends arbitrary bodies to POST /payments over the
// listener, against the database: whatever the body, the API answers 201
// with a payment, or 400, 413 or 422 as problem+json whose status member is
// the status; it never panics, never 500s. keyed picks no key or one of two
// shared keys, so replays and 422s happen too. padKiB appends that many KiB
// of spaces (valid after JSON): past 64 the body is too large. A padding
// rather than large bodies in the corpus, because the fuzzer minimises every
// new input one request per try, and from 64 KiB of bytes that takes minutes.
func FuzzCreatePayment(f *testing.F) {
	for _, seed := range []string{
		validBody,
		`{"client_id": "acme", "amount_cents": 1251, "currency": "EUR"}`,
		`{"client_id": "a", "amount_cents": 9223372036854775807, "currency": "USD"}`,
		`{"client_id": "acme", "amount_cents": 12.5, "currency": "EUR"}`,
		`{"client_id": "acme", "amount_cents": 1250, "currency": "EUR", "x": [1, {"y": null}]}`,
		`{"client_id": "acme", "amount_cents": 1250, "currency": "EUR", "client_id": "b"}`,
		`{"client_id": "\u00e9\ud83d\ude00", "amount_cents": 1, "currency": "JPY"}`,
		`{"client_id": "acme"`, `[]`, `null`, `"x"`, `1`, ``, "\xff\xfe", `{} {}`,
	} {
		for keyed := range uint8(3) {
			f.Add([]byte(seed), keyed, uint8(0))
		}
	}
	f.Add([]byte(validBody), uint8(1), uint8(63))
	f.Add([]byte(validBody), uint8(1), uint8(64))
	b := setup(f, DBConfig{})
	f.Fuzz(func(t *testing.T, body []byte, keyed, padKiB uint8) {
		var headers []string
		if k := keyed % 3; k > 0 {
			headers = []string{"Idempotency-Key", []string{"", "fuzz-a", "fuzz-b"}[k]}
		}
		sent := append(body[:len(body):len(body)], bytes.Repeat([]byte{' '}, int(padKiB)<<10)...)
		r := b.do(t, http.MethodPost, "/payments", bytes.NewReader(sent), headers...)
		switch r.status {
		case http.StatusCreated:
			mustCreated(t, r)
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity:
			mustProblem(t, r, r.status)
		default:
			t.Fatalf("body %q + %d KiB: status %d, want 201, 400, 413 or 422: %s", body, padKiB, r.status, r.body)
		}
		if tooLarge := len(sent) > MaxBodyBytes; tooLarge != (r.status == http.StatusRequestEntityTooLarge) {
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
