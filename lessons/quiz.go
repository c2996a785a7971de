package lessons

import (
	"hash/fnv"
	"math/rand/v2"
	"slices"
)

// WithQuizOrder returns a copy of the lesson whose quiz choices are in an
// order of seed's (a learner's own, kept in their progress): written with the
// right answer first, a quiz read in file order would always be answered
// "1". The same seed gives the same order, so a learner who restarts sees the
// quiz as before.
func (l *Lesson) WithQuizOrder(seed uint64) *Lesson {
	c := *l
	c.Quiz = make([]Question, len(l.Quiz))
	h := fnv.New64a()
	h.Write([]byte(l.Name))
	name := h.Sum64()
	for i, q := range l.Quiz {
		r := rand.New(rand.NewPCG(seed, name+uint64(i)))
		q.Choices = slices.Clone(q.Choices)
		r.Shuffle(len(q.Choices), func(a, b int) { q.Choices[a], q.Choices[b] = q.Choices[b], q.Choices[a] })
		c.Quiz[i] = q
	}
	return &c
}
