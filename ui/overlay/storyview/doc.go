// Package storyview is the story overlay: one message's life (package
// story's) drawn as a sequence diagram over the whole body, each actor a
// column, each statement and delivery an arrow, scrolled by keys; t shows
// the message's trace instead. The root builds the story and opens the
// pane with it; the pane says it is done with CloseMsg.
package storyview
