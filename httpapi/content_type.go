package httpapi

import (
	"fmt"
	"mime"
	"net/http"
	"strings"
)

// jsonContentType checks the Content-Type of a body sent to POST /payments:
// application/json or any type with the +json suffix (RFC 6839), with a
// charset only if it is UTF-8 (RFC 8259: JSON exchanged between systems is
// UTF-8). It returns "" or a detail for the 415.
//
// No Content-Type at all is taken as JSON: RFC 9110 (8.3) lets a recipient
// examine content whose type is not given, and the body is then parsed as
// JSON and refused (400) if it is not. What is refused here is a body that
// says it is something else, such as curl -d's
// application/x-www-form-urlencoded or text/plain: parsing it as JSON
// anyway would answer a question the client did not ask.
func jsonContentType(h http.Header) string {
	values := h.Values("Content-Type")
	switch len(values) {
	case 0:
		return ""
	case 1:
	default:
		return "send one Content-Type: application/json"
	}
	mt, params, err := mime.ParseMediaType(values[0])
	if err != nil {
		return fmt.Sprintf("Content-Type %q is not a media type: send Content-Type: application/json", values[0])
	}
	if mt != "application/json" && !(strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")) {
		return fmt.Sprintf("the body must be JSON, sent as Content-Type: application/json; %s is not (with curl: -H 'Content-Type: application/json')", mt)
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "utf8") {
		return fmt.Sprintf("charset %s: JSON is UTF-8; send charset=utf-8 or none", cs)
	}
	return ""
}
