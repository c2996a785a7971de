package lesson

import (
	"slices"
	"testing"

	"github.com/outboxlab/outboxlab/lessons"
)

// A step names the same columns in both languages: the Spanish lessons
// name them by the Spanish headers (int, próx. intento), and the tables
// pane keeps them drawn whole for a Spanish learner as for an English one.
func TestBothLanguagesNameTheSameColumns(t *testing.T) {
	en, err := lessons.Load("en")
	if err != nil {
		t.Fatal(err)
	}
	es, err := lessons.Load("es")
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for i, l := range en {
		for s := range l.Steps {
			a, b := namedColumns(l, s), namedColumns(es[i], s)
			slices.Sort(a)
			slices.Sort(b)
			named += len(a)
			if !slices.Equal(a, b) {
				t.Errorf("%s step %d names %v in English, %v in Spanish", l.Name, s+1, a, b)
			}
		}
	}
	if named == 0 {
		t.Fatal("no step names a column: the test compares nothing")
	}
}
