package engine

import (
	"errors"
	"strings"
	"testing"
)

func TestSanitizeError(t *testing.T) {
	cases := []struct {
		in       string
		mustNot  []string
		mustHave []string
	}{
		{"dial postgres://app:pa55@db:5432/x: refused", []string{"pa55"}, []string{"postgres://app:REDACTED@db"}},
		{`broker said {"payment_id":"1","card":{"pan":"4111"}} bad`, []string{"4111", "payment_id"}, []string{"broker said {…} bad"}},
		{"auth failed: password=hunter2 token: abc.def", []string{"hunter2", "abc.def"}, []string{"password=REDACTED"}},
		{"line1\nline2\x00", []string{"\n", "\x00"}, []string{"line1 line2"}},
		{strings.Repeat("é", 1000), nil, []string{"…"}},
	}
	for _, tc := range cases {
		got := sanitizeError(errors.New(tc.in))
		if len(got) > MaxErrorLength {
			t.Errorf("%d bytes, want at most %d", len(got), MaxErrorLength)
		}
		for _, s := range tc.mustNot {
			if strings.Contains(got, s) {
				t.Errorf("sanitize(%q) = %q keeps %q", tc.in, got, s)
			}
		}
		for _, s := range tc.mustHave {
			if !strings.Contains(got, s) {
				t.Errorf("sanitize(%q) = %q lacks %q", tc.in, got, s)
			}
		}
	}
}
