package lessons

// Place is where a learner is in a lesson: the one word the screen, the
// workshop's room, its page and its report use for it.
type Place string

const (
	// PlaceStep is a step on screen, its task not done yet.
	PlaceStep Place = "step"
	// PlacePassed is a step passed, its why on screen.
	PlacePassed Place = "passed"
	// PlaceQuiz is the lesson's quiz.
	PlaceQuiz Place = "quiz"
	// PlaceDone is the lesson finished.
	PlaceDone Place = "done"
)
