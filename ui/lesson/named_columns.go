package lesson

import (
	"regexp"

	"github.com/outboxlab/outboxlab/lessons"
)

// columnNames are how a lesson's text names a column of outbox_messages, the
// table the lessons send the learner to: by its header (English or Spanish:
// int is att, próx. intento next attempt), by the database
// column it shows, or as "the lock and lease columns". Words that are also
// plain English (a lock, the next attempt of a retry) count only in these
// forms, so a sentence that merely uses the word does not pin the column.
var columnNames = []struct {
	column string
	named  *regexp.Regexp
}{
	{"seq", regexp.MustCompile(`\bseq\b`)},
	{"att", regexp.MustCompile(`\batt\b|\bint\b`)},
	{"lock", regexp.MustCompile(`\block (and|y) lease|\block (change|cambia)|\block_id\b`)},
	{"lease until", regexp.MustCompile(`\block (and|y) lease|\blocked_until\b|\blease until\b`)},
	{"next attempt", regexp.MustCompile("`next attempt`|\\bnext attempt in\\b|\\bnext_attempt_at\\b|\\batt (and|y) next attempt\\b|\\bpróx\\. intento\\b")},
	{"dead", regexp.MustCompile(`\bdead column|\bcolumna dead\b|\bdead_lettered_at\b`)},
	{"last error", regexp.MustCompile(`\blast_error\b`)},
}

// namedColumns are the outbox_messages columns a step's text names (its
// reading, task, hint and why; the lesson's introduction on its first step):
// the tables pane draws them whole.
func namedColumns(l *lessons.Lesson, step int) []string {
	if l == nil || step < 0 || step >= len(l.Steps) {
		return nil
	}
	st := l.Steps[step]
	text := st.Read + "\n" + st.Task + "\n" + st.Hint + "\n" + st.Why
	if step == 0 {
		text = l.Intro + "\n" + text
	}
	return namedIn.lines(text, func() []string {
		var out []string
		for _, c := range columnNames {
			if c.named.MatchString(text) {
				out = append(out, c.column)
			}
		}
		return out
	})
}

// namedIn keeps namedColumns' answer by text: the root asks on every
// resize, which every action makes, and its seven regexps over a step's
// text were a sixth of the test process's CPU in a profile of ui's tests,
// which play every lesson by keys (in a workshop, one process serves every
// learner's keys). 512: the steps of both languages' course with room to
// spare.
var namedIn = newMemo[string](512)
