package httpapi

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// notUnicode says what in raw, a member's name or value as sent, is not
// Unicode text: invalid UTF-8, or a \u escape of half a surrogate pair
// with no other half (RFC 8259 (8.2) leaves such strings to the parser;
// encoding/json makes them U+FFFD). "" when raw is text.
func notUnicode(raw []byte) string {
	if !utf8.Valid(raw) {
		return "is not valid UTF-8"
	}
	if esc, ok := loneSurrogate(raw); ok {
		return fmt.Sprintf(`holds %s, half of a UTF-16 surrogate pair without the other half: not a character`, esc)
	}
	return ""
}

// invalidUTF8 reports where body stops being UTF-8, if it does.
func invalidUTF8(body []byte) (int, bool) {
	for i := 0; i < len(body); {
		r, n := utf8.DecodeRune(body[i:])
		if r == utf8.RuneError && n <= 1 {
			return i, true
		}
		i += n
	}
	return 0, false
}

// loneSurrogate finds a \u escape in the strings of raw (JSON the decoder
// accepted) that is a high surrogate not followed by a low one, or a low
// one not preceded by a high one, and returns it as sent.
func loneSurrogate(raw []byte) (string, bool) {
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\' && i+1 < len(raw) && raw[i+1] == 'u':
			r, ok := hex4(raw, i+2)
			if !ok {
				i++
				continue
			}
			esc := string(raw[i : i+6])
			switch {
			case utf16.IsSurrogate(r) && r < 0xDC00: // high: a low must follow
				if lo, ok := hex4(raw, i+8); ok && i+7 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' && lo >= 0xDC00 && lo <= 0xDFFF {
					i += 11 // the pair
					continue
				}
				return esc, true
			case utf16.IsSurrogate(r): // low, with no high before it
				return esc, true
			}
			i += 5
		case c == '\\':
			i++ // an escaped character: \" does not end the string
		}
	}
	return "", false
}

// hex4 reads the four hex digits of a \u escape at raw[i:].
func hex4(raw []byte, i int) (rune, bool) {
	if i+4 > len(raw) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(raw[i:i+4]), 16, 16)
	return rune(n), err == nil
}
