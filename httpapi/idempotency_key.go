package httpapi

import (
	"net/http"
	"strings"
)

// maxKeyLen is the longest key idempotency_keys accepts (engine's Validate).
const maxKeyLen = 255

// idempotencyKey reads the Idempotency-Key header: a structured-field string
// ("8e03…", as the IETF draft writes it) or the bare token most clients
// send (8e03…); both name the same key. "" when the header is absent.
func idempotencyKey(h http.Header) (string, *fieldError) {
	values := h.Values("Idempotency-Key")
	switch len(values) {
	case 0:
		return "", nil
	case 1:
	default:
		return "", bad("send one Idempotency-Key header, not several")
	}
	v := values[0]
	key, ok := v, true
	if strings.HasPrefix(v, `"`) {
		key, ok = unquoteSFString(v)
	} else {
		for i := range len(v) {
			if v[i] <= ' ' || v[i] > '~' {
				ok = false
			}
		}
	}
	switch {
	case !ok:
		return "", bad(`must be printable ASCII: a bare token, or a "quoted string"`)
	case key == "":
		return "", bad("must not be empty")
	case len(key) > maxKeyLen:
		return "", bad("must be at most 255 bytes")
	}
	return key, nil
}

func bad(detail string) *fieldError {
	e := headerError("Idempotency-Key", detail)
	return &e
}

// unquoteSFString parses an RFC 8941 string: printable ASCII between double
// quotes, with \" and \\ the only escapes, and nothing after the closing quote.
func unquoteSFString(v string) (string, bool) {
	var b strings.Builder
	for i := 1; i < len(v); i++ {
		switch c := v[i]; {
		case c == '\\':
			i++
			if i == len(v) || (v[i] != '"' && v[i] != '\\') {
				return "", false
			}
			b.WriteByte(v[i])
		case c == '"':
			return b.String(), i == len(v)-1
		case c < ' ' || c > '~':
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return "", false // no closing quote
}
