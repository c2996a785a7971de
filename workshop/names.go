package workshop

import (
	"os"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// stripMarks takes the accents off letters (José → Jose, Zoë → Zoe): a
// name keeps its letters in the learner's id instead of becoming "_". A
// transformer holds state: one per call.
func stripMarks() transform.Transformer {
	return transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
}

// learnerName is an SSH user name as a learner's id: lower case letters,
// digits and _, at most 24 (it names their databases and directory).
// Accented letters lose their accent; what has no such form becomes _.
func learnerName(user string) string {
	plain, _, err := transform.String(stripMarks(), user)
	if err != nil {
		plain = user
	}
	var b strings.Builder
	for _, c := range strings.ToLower(plain) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b.WriteRune(c)
		case c == 'ß':
			b.WriteString("ss")
		case c == 'æ':
			b.WriteString("ae")
		case c == 'ø':
			b.WriteRune('o')
		default:
			b.WriteRune('_')
		}
		if b.Len() >= 24 {
			break
		}
	}
	if b.Len() == 0 {
		return "learner"
	}
	return b.String()
}

// shown is how the instructor's list names a learner: their id, and the
// name they typed when the id had to change it (jose (José)).
func (v LearnerView) shown() string {
	if v.User == "" || v.User == v.ID || learnerName(v.User) == v.ID && strings.ToLower(v.User) == v.ID {
		return v.ID
	}
	return v.ID + " (" + v.User + ")"
}

// anonymousPrefix names a learner of an anonymous room: learner_1,
// learner_2… (ids are database names: no hyphen).
const anonymousPrefix = "learner_"

// lastAnonymous is the highest N of a learner_N folder an earlier room on
// this data directory left: the next anonymous learner is not taken for
// them (their progress is theirs).
func lastAnonymous(dir string) int {
	last := 0
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if n, err := strconv.Atoi(strings.TrimPrefix(e.Name(), anonymousPrefix)); err == nil && strings.HasPrefix(e.Name(), anonymousPrefix) {
			last = max(last, n)
		}
	}
	return last
}
