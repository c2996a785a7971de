// Package chooser is the fault dialog behind c, s, m, T and f, centred over
// the body: for c and s first which actor, then now or at which checkpoint
// (or restart a crashed actor, resume a stalled one); for m which actor,
// then one step, finish, or until a checkpoint; for T how far to move the
// clock; for f in compare mode which writer's COMMIT fails. Every choice
// has a number, and its digit chooses it at once: the order is the one a
// lesson's hint writes as keys (Actors, PipelineChoices, Checkpoints,
// AdvanceBy). The dialog ends with the commands it built (FaultChosenMsg)
// or with nothing (CloseMsg).
package chooser
