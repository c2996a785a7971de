package lessons

import (
	"fmt"
	"strings"
)

// Lang chooses the lessons' language from the environment, as POSIX
// programs do: LC_ALL wins over LANG; "es", "es_ES.UTF-8", "es-MX" give
// "es"; anything else (unset, C, POSIX, en_US...) gives "en".
func Lang(lang, lcAll string) string {
	v := lcAll
	if v == "" {
		v = lang
	}
	if l, err := ParseLang(v); err == nil {
		return l
	}
	return "en"
}

// ParseLang reads a --lang value or a locale name: its language part must
// be one of Langs.
func ParseLang(s string) (string, error) {
	l := strings.ToLower(s)
	if i := strings.IndexAny(l, "_-.@"); i >= 0 {
		l = l[:i]
	}
	for _, known := range Langs {
		if l == known {
			return l, nil
		}
	}
	return "", fmt.Errorf("unknown language %q (known: %s)", s, strings.Join(Langs, ", "))
}
