// Package lesson is the lesson pane: a guided lesson's introduction, the
// step on screen (what to read, the task, the live status of each check,
// the hint on request with its keys, the why once it passes), then the
// quiz and the lesson's end; without a lesson, what the scene teaches and
// which server runs it. It keeps where the learner is in the lesson
// (Place, Step) and renders the lessons' Markdown with glamour, a memo
// keeping what it rendered. The lesson page in package ui moves it on
// (StartStep, SetOutcomes, StartQuiz…) and gives it the table that writes
// a step's solution as keys (KeyHint), which are the root's.
package lesson
