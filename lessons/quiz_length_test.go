package lessons

import (
	"testing"
	"unicode/utf8"
)

// longestIsRight says whether the right choice's text is strictly the
// longest of its question's choices, in runes. The because: text is not
// counted: the learner sees it only after answering.
func longestIsRight(q Question) bool {
	right := q.Answer()
	n := utf8.RuneCountInString(q.Choices[right].Text)
	for i, c := range q.Choices {
		if i != right && utf8.RuneCountInString(c.Text) >= n {
			return false
		}
	}
	return true
}

// The length of a choice is no tell: in no language is the right answer
// the strictly longest choice in more than a third of the questions (three
// choices of random lengths would make it so in about a third).
func TestQuizAnswerIsNotTheLongest(t *testing.T) {
	for _, lang := range Langs {
		all, err := Load(lang)
		if err != nil {
			t.Fatal(err)
		}
		longest, total := 0, 0
		var which []string
		written := map[int]int{}
		for _, l := range all {
			for i, q := range l.Quiz {
				total++
				written[q.Answer()]++
				if longestIsRight(q) {
					longest++
					which = append(which, l.Name+" q"+string(rune('1'+i)))
				}
			}
		}
		t.Logf("%s: the right answer is the longest choice in %d of %d questions", lang, longest, total)
		if longest*3 > total {
			t.Errorf("%s: the right answer is the strictly longest choice in %d of %d questions (more than a third): %v", lang, longest, total, which)
		}
		// The UI shuffles the choices, but the file is read too (by
		// reviewers, by `outboxlab play`): the written position is no tell
		// either.
		for pos, n := range written {
			if n*2 > total {
				t.Errorf("%s: the right answer is written in position %d in %d of %d questions (more than half)", lang, pos+1, n, total)
			}
		}
	}
}
