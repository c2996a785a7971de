package lessons

import (
	"path/filepath"
	"slices"
	"testing"
)

// Across the course the right answer is not always in one position, for any
// learner; one learner sees the same order every time; no choice is lost.
func TestQuizOrderVariesAndIsStable(t *testing.T) {
	for _, lang := range Langs {
		all, err := Load(lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, seed := range []uint64{1, 2, 0xdecafbad, 1 << 63} {
			positions := map[int]int{}
			for _, l := range all {
				a, b := l.WithQuizOrder(seed), l.WithQuizOrder(seed)
				for i, q := range a.Quiz {
					positions[q.Answer()]++
					if !slices.Equal(q.Choices, b.Quiz[i].Choices) {
						t.Errorf("%s/%s q%d: the same seed gave two orders", lang, l.Name, i+1)
					}
					if !sameChoices(q.Choices, l.Quiz[i].Choices) {
						t.Errorf("%s/%s q%d: shuffling changed the choices", lang, l.Name, i+1)
					}
				}
			}
			if len(positions) < 2 {
				t.Errorf("%s, seed %d: every right answer is in position %v", lang, seed, positions)
			}
			for pos, n := range positions {
				if n*10 > 8*sum(positions) {
					t.Errorf("%s, seed %d: %d of %d right answers in position %d", lang, seed, n, sum(positions), pos+1)
				}
			}
		}
	}
}

// The learner's seed is made once and kept across restarts.
func TestQuizSeedIsKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), ProgressFile)
	p, err := LoadProgress(path)
	if err != nil || p.QuizSeed == 0 {
		t.Fatalf("new progress: seed %d, %v", p.QuizSeed, err)
	}
	if err := p.Save(); err != nil {
		t.Fatal(err)
	}
	q, err := LoadProgress(path)
	if err != nil || q.QuizSeed != p.QuizSeed {
		t.Fatalf("seed %d after a restart, want %d (%v)", q.QuizSeed, p.QuizSeed, err)
	}
}

func sameChoices(a, b []Choice) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	cmp := func(x, y Choice) int { return x.Line - y.Line }
	slices.SortFunc(a, cmp)
	slices.SortFunc(b, cmp)
	return slices.Equal(a, b)
}

func sum(m map[int]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
