package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strings"
)

// traceParent returns the request's W3C traceparent (Trace Context) in its
// version 00 form, or "" when the request has none, several, or an invalid
// one. An invalid header is ignored, not refused: the Trace Context
// recommendation says to start a new trace then, and a payment must not fail
// because of its tracing.
func traceParent(h http.Header) string {
	values := h.Values("Traceparent")
	if len(values) != 1 {
		return ""
	}
	return parseTraceParent(values[0])
}

// parseTraceParent validates version-traceid-parentid-flags: lowercase hex,
// version ff invalid, all-zero ids invalid, exactly 55 characters for version
// 00. A later version may append fields after a '-': its first four are read
// and propagated as version 00, the only one this API knows.
func parseTraceParent(s string) string {
	if len(s) < 55 || s[2] != '-' || s[35] != '-' || s[52] != '-' {
		return ""
	}
	version, traceID, parentID, flags := s[0:2], s[3:35], s[36:52], s[53:55]
	switch {
	case !isLowerHex(version) || version == "ff":
		return ""
	case version == "00" && len(s) != 55:
		return ""
	case len(s) > 55 && s[55] != '-':
		return ""
	case !isLowerHex(traceID) || !isLowerHex(parentID) || !isLowerHex(flags):
		return ""
	case strings.Trim(traceID, "0") == "" || strings.Trim(parentID, "0") == "":
		return ""
	}
	return "00-" + traceID + "-" + parentID + "-" + flags
}

func isLowerHex(s string) bool {
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// newTraceParent starts a trace: random trace and parent ids, sampled.
func newTraceParent() string {
	var b [24]byte
	for {
		_, _ = rand.Read(b[:]) // never fails (crypto/rand's contract since Go 1.24)
		tp := "00-" + hex.EncodeToString(b[:16]) + "-" + hex.EncodeToString(b[16:]) + "-01"
		if parseTraceParent(tp) != "" { // an all-zero id is invalid; redraw
			return tp
		}
	}
}
