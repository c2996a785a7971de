// Package picker is the / overlay: the course's lessons, then every scene,
// in a list filtered as the learner types (bubbles' list), with what the
// selected one teaches under it, in the learner's language. It opens on
// lesson 1 the first time, then on the scene on screen, and asks the root
// to open what is chosen (ChooseLessonMsg, ChooseSceneMsg) or to close it
// (CloseMsg).
package picker
