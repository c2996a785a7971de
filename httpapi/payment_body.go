package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxBodyBytes is the largest body POST /payments reads; a larger one is 413.
// A payment body is under 100 bytes: 64 KiB is generous and still bounds
// what one request can make the server hold.
const MaxBodyBytes = 64 << 10

// maxClientLen bounds client_id, which is half of the idempotency record's key.
const maxClientLen = 64

// paymentBody is POST /payments' JSON body. Its member names are the
// response's and the payments table's columns, so a learner reads the same
// words in the request, the response and the Tables pane:
//
//	{"client_id": "acme", "amount_cents": 1250, "currency": "EUR"}
//
// amount_cents is an integer in the currency's minor unit (1250 EUR cents
// is 12.50 EUR), never a float that cannot hold 0.10 exactly.
type paymentBody struct {
	ClientID    string
	AmountCents int64
	Currency    string
}

// The members, in the order a missing one is reported.
var paymentMembers = []string{"client_id", "amount_cents", "currency"}

// decodePaymentBody reads one JSON object with exactly the members above,
// each once. Every fault found is returned, each naming its member.
//
// Text that is not Unicode is refused where it is, not repaired:
// encoding/json turns invalid UTF-8 and a lone surrogate escape ("\ud800")
// into U+FFFD without a word, so a client_id would be stored as something
// the client never sent. Each member's raw bytes are checked for both, and
// the fault named by the member's pointer.
func decodePaymentBody(body []byte) (paymentBody, []fieldError) {
	members, err := objectMembers(body)
	if err != nil {
		if at, bad := invalidUTF8(body); bad {
			// encoding/json reports invalid UTF-8 outside a string as a
			// character it cannot show: say what it is instead.
			return paymentBody{}, []fieldError{bodyError("", fmt.Sprintf("the body is not valid UTF-8 (at byte %d)", at))}
		}
		return paymentBody{}, []fieldError{bodyError("", err.Error())}
	}
	var (
		p    paymentBody
		errs []fieldError
		seen = map[string]bool{}
	)
	for _, m := range members {
		ptr := "/" + pointerEscaper.Replace(m.name)
		if seen[m.name] {
			errs = append(errs, bodyError(ptr, "appears more than once"))
			continue
		}
		seen[m.name] = true
		if detail := notUnicode(m.rawName); detail != "" {
			// The name itself is not text: no pointer can name it.
			errs = append(errs, bodyError("", fmt.Sprintf("a member name at byte %d %s", m.at, detail)))
			continue
		}
		if detail := notUnicode(m.value); detail != "" {
			errs = append(errs, bodyError(ptr, detail))
			continue
		}
		var detail string
		switch m.name {
		case "client_id":
			p.ClientID, detail = clientID(m.value)
		case "amount_cents":
			p.AmountCents, detail = amountCents(m.value)
		case "currency":
			p.Currency, detail = currency(m.value)
		default:
			detail = "unknown member: a payment has client_id, amount_cents and currency"
		}
		if detail != "" {
			errs = append(errs, bodyError(ptr, detail))
		}
	}
	for _, name := range paymentMembers {
		if !seen[name] {
			errs = append(errs, bodyError("/"+name, "required"))
		}
	}
	return p, errs
}

// pointerEscaper escapes a member name as a JSON Pointer token (RFC 6901).
var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

type member struct {
	name    string
	rawName []byte // the name's bytes in the body, as sent
	at      int64  // where the name starts in the body
	value   json.RawMessage
}

// objectMembers splits a JSON object into its members in body order,
// duplicates kept (a map would silently keep the last).
func objectMembers(body []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, malformed(err, dec)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("the body must be a JSON object")
	}
	var members []member
	for dec.More() {
		from := dec.InputOffset() // before the comma and space ahead of the name
		tok, err := dec.Token()
		if err != nil {
			return nil, malformed(err, dec)
		}
		name, _ := tok.(string) // inside an object the decoder only yields string keys
		raw := body[from:dec.InputOffset()]
		at := from + int64(bytes.IndexByte(raw, '"'))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, malformed(err, dec)
		}
		members = append(members, member{name: name, rawName: raw, at: at, value: v})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, malformed(err, dec)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("malformed JSON: something follows the object at byte %d", dec.InputOffset())
	}
	return members, nil
}

func malformed(err error, dec *json.Decoder) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		if dec.InputOffset() == 0 {
			return errors.New(`the body is empty: send a JSON object such as {"client_id": "acme", "amount_cents": 1250, "currency": "EUR"}`)
		}
		return errors.New("malformed JSON: the body ends inside the object")
	}
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return fmt.Errorf("malformed JSON at byte %d: %s", syntax.Offset, strings.TrimPrefix(syntax.Error(), "json: "))
	}
	return fmt.Errorf("malformed JSON at byte %d", dec.InputOffset())
}

// The member checks return the value and "" or a detail saying what is wrong.

func clientID(v json.RawMessage) (string, string) {
	s, ok := jsonString(v)
	switch {
	case !ok:
		return "", "must be a string"
	case s == "":
		return "", "must not be empty"
	case utf8.RuneCountInString(s) > maxClientLen:
		return "", fmt.Sprintf("must be at most %d characters", maxClientLen)
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return "", "must not contain control characters"
	}
	return s, ""
}

func amountCents(v json.RawMessage) (int64, string) {
	const want = "must be a whole number of cents, e.g. 1250 for 12.50"
	// A JSON string, null, a fraction or an exponent all fail ParseInt.
	n, err := strconv.ParseInt(string(v), 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, "is too large"
	case err != nil:
		return 0, want
	case n <= 0:
		return 0, "must be positive"
	}
	return n, ""
}

func currency(v json.RawMessage) (string, string) {
	s, ok := jsonString(v)
	if !ok || len(s) != 3 || strings.IndexFunc(s, func(r rune) bool { return r < 'A' || r > 'Z' }) >= 0 {
		return "", "must be an ISO 4217 code: three capital letters, such as EUR"
	}
	if !isISO4217(s) {
		return "", fmt.Sprintf("must be an ISO 4217 code, such as EUR: %s is not one", s)
	}
	return s, ""
}

// jsonString decodes v when it is a JSON string (not null, not a number).
func jsonString(v json.RawMessage) (string, bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	var s string
	return s, json.Unmarshal(v, &s) == nil
}
