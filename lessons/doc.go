// Package lessons holds the guided lessons (embedded, in English and
// Spanish), their parser, the checks that decide when a step is done, and
// the learner's progress. It is headless: the TUI renders a Lesson and
// calls Step.Eval after each action; autoplay calls Step.Solve.
//
// A lesson runs on a simulator built from a built-in scene's settings (mode,
// relays, workers, variant...), never its script: the learner performs the
// tasks, with the same commands the TUI sends (sim.Do with scenes.Step).
//
// # File format
//
// One Markdown file per lesson and language: en/NAME.md and es/NAME.md
// (NAME is what `outboxlab --lesson NAME` takes). Front matter first, then
// the introduction, then steps, then the quiz:
//
//	---
//	title: The duplicate window: published, not marked
//	summary: One line for `outboxlab lessons`.
//	teaches: S13                    the design items (seed-summary.md)
//	order: 5                        position in the course
//	scene: crash-after-publish      whose settings the simulator runs with
//	variant: NAME                   optional: one of the scene's variants
//	mode: compare                   optional: naive | outbox | compare
//	---
//	The introduction, Markdown.
//
//	step: Die between publish and mark
//	What to read, Markdown (anything but the keys below at a line's start).
//
//	variant: select-then-insert     optional: this step starts on a fresh
//	                                simulator running that variant ("none":
//	                                the scene as written)
//	task: Crash relay-1 right after it publishes, send a payment, and run.
//	watch: guarantees               the data pane the step reads: guarantees,
//	                                tables, timeline or metrics
//	check: timeline: relay-1 crashed at relay.published
//	check: oracle: publishes == 1
//	hint: Arm the crash before the payment: the broker has the event
//	  before the row is marked.
//	why: Shown once every check passes.
//	solution: crash relay-1 at relay.published; request; run
//
//	quiz: Check your understanding  (the title is optional)
//	question: Why must the event id be generated once?
//	answer: So that every republish carries the same id.   the right choice
//	  because: Why it is right.
//	option: Because PostgreSQL requires uuid keys.          a wrong choice
//	  because: Why it is wrong.
//
// After the reading text, a step is made of key: value lines: task, hint,
// why and watch once each (every built-in step has a watch: line, the same
// pane in both languages, and a step whose text points at a pane, "the
// timeline", "the Guarantees pane", watches it: a test checks all three),
// one or more check lines, one or more solution lines
// (their commands add up). A line indented under a key: line continues it;
// a blank line ends it. Reading text after a step's first key line is an
// error. Choices are shown in the order written; each question has exactly
// one answer: line, at least one option: line, and a because: for each; a
// lesson has two or three questions. Wrong choices are misconceptions as
// specific as the answer: the answer is neither the longest choice in more
// than a third of a language's questions nor written in one place in more
// than half of them (a test measures both). A hint is words: the TUI already shows
// the solution's keys above it, so a hint says why, or what to watch, and
// never spells the scene commands. Keys are English in every language;
// only their values are translated, and checks and solutions are identical
// in both languages (a test compares them).
//
// # Checks
//
// A check reads the simulator's real state, never the keys pressed:
//
//	oracle: [PIPELINE] FIGURE OP N                    an oracle figure (scenes.Figures)
//	table: [PIPELINE] TABLE count OP N                rows in a table (sim.TableNames)
//	timeline: [PIPELINE/]ACTOR crashed [at CHECKPOINT] [OP N]
//	timeline: [PIPELINE/]ACTOR reached CHECKPOINT [OP N]
//	timeline: [PIPELINE/]ACTOR restarted|blocked|failed [OP N]
//	actor: [PIPELINE/]ACTOR is idle|paused|stalled|blocked|crashed|down [at CHECKPOINT]
//
// OP is one of == != >= <= > <. A timeline check counts the entries
// recorded since the step began (default ">= 1"): "failed" is an error
// entry (a failed COMMIT, a 422), "blocked" a wait on a row lock. PIPELINE
// may be left out when the step runs one pipeline; in compare mode an
// oracle or table check must name it. Checks are validated when a lesson
// loads, against the step's settings: an unknown figure, table, actor or
// checkpoint, an actor that does not run (relay-2 with one relay), or a
// checkpoint the actor never reaches (relay-1 at consumer.acked).
//
// # Solutions
//
// A solution: line is scene commands separated by ";" (the form scene
// files use, checked by the scenes parser), performing the step's task. The
// tests solve every lesson with them, and check that no step passes before
// its task is done and that a plausible wrong action does not pass it;
// `outboxlab play LESSON` can replay them. Once a step passes, every figure
// its prose quotes with a number ("pending 1", "`published == 2`", "3
// deliveries", "eventos perdidos 1") must be what the oracle shows then.
//
// A malformed file is reported as file:line: reason (*Error).
package lessons
