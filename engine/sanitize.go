package engine

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxErrorLength bounds the last_error stored in the outbox, in bytes.
const MaxErrorLength = 512

var (
	// scheme://user:password@host → scheme://user:REDACTED@host
	urlCredentials = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]+):[^@\s]*@`)
	// password=…, token: …, api_key=… (also quoted, also in JSON)
	secretPair = regexp.MustCompile(`(?i)("?(?:password|passwd|pwd|secret|token|api[_-]?key|authorization)"?\s*[=:]\s*)("[^"]*"|'[^']*'|\S+)`)
	// innermost {…}: payloads a broker echoes back in its errors
	jsonObject = regexp.MustCompile(`\{[^{}]*\}`)
)

// sanitizeError makes an error safe to persist in last_error (S12, S15): no
// credentials, no payload, no control characters, at most MaxErrorLength bytes.
func sanitizeError(err error) string {
	if err == nil {
		return ""
	}
	s := err.Error()
	s = urlCredentials.ReplaceAllString(s, "${1}:REDACTED@")
	s = secretPair.ReplaceAllString(s, "${1}REDACTED")
	// Innermost objects first, each replaced by a brace-free placeholder so
	// the object around it becomes innermost on the next pass.
	const hole = "\uE000"
	for prev := ""; prev != s; {
		prev = s
		s = jsonObject.ReplaceAllString(s, hole)
	}
	s = strings.ReplaceAll(s, hole, "{…}")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	if len(s) > MaxErrorLength {
		cut := MaxErrorLength - len("…")
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
