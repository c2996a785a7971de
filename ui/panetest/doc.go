// Package panetest is what the screen's tests share: the styles the
// goldens are drawn with (and the same in a learner's language), the
// golden comparison of a view (its text, or its colours too), a key press
// as a terminal sends it, and the fixtures of one run every pane and
// screen golden draws. Only tests import it.
package panetest
