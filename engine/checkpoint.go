package engine

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Checkpoint names a point an actor reports to the Hook before going on.
type Checkpoint string

// The checkpoints, in the order a payment meets them.
const (
	APIBegin      Checkpoint = "api.begin"      // before BEGIN
	APIInserted   Checkpoint = "api.inserted"   // payment, outbox row (and key) inserted, before COMMIT
	APICommitted  Checkpoint = "api.committed"  // after COMMIT returned
	APIReplayed   Checkpoint = "api.replayed"   // an Idempotency-Key matched: the stored response is returned
	APIResolved   Checkpoint = "api.resolved"   // an ambiguous commit was resolved from the idempotency record
	NaiveBegin    Checkpoint = "naive.begin"    // before BEGIN
	NaiveInserted Checkpoint = "naive.inserted" // payment inserted, before COMMIT

	NaiveCommitted Checkpoint = "naive.committed" // after COMMIT (commit-then-publish: before publishing)
	NaivePublished Checkpoint = "naive.published" // after the broker accepted the message

	RelayClaimed        Checkpoint = "relay.claimed"         // a batch was leased (the claim committed)
	RelayPublished      Checkpoint = "relay.published"       // the broker accepted one message, not yet marked
	RelayMarked         Checkpoint = "relay.marked"          // published rows marked (only those still leased)
	RelayRetryScheduled Checkpoint = "relay.retry_scheduled" // publish failed, next_attempt_at persisted
	RelayDeadLettered   Checkpoint = "relay.dead_lettered"   // publish failed at the last attempt
	RelayLeaseLost      Checkpoint = "relay.lease_lost"      // a mark or retry found another worker's lease
	RelayReceived       Checkpoint = "relay.received"        // CDC: committed inserts received from the slot, not confirmed
	RelayConfirmed      Checkpoint = "relay.confirmed"       // CDC: the LSN confirmed to the slot (its WAL may be freed)

	BrokerDelivered Checkpoint = "broker.delivered" // a delivery was handed to a consumer

	ConsumerInboxInserted Checkpoint = "consumer.inbox_inserted" // inbox insert ran (Rows 0 = duplicate)
	ConsumerDuplicate     Checkpoint = "consumer.duplicate"      // already processed: commit and ACK, no effect
	ConsumerVersionGap    Checkpoint = "consumer.version_gap"    // unexpected aggregate_version: rolled back, not applied
	ConsumerEffectApplied Checkpoint = "consumer.effect_applied" // business effect inserted, before COMMIT
	ConsumerCommitted     Checkpoint = "consumer.committed"      // after COMMIT, before ACK
	ConsumerAcked         Checkpoint = "consumer.acked"          // after ACK

	// ConsumerCalled: the consumer's call to an external provider returned
	// (S19): before its COMMIT (marker-after, provider-key) or after it
	// (marker-before).
	ConsumerCalled Checkpoint = "consumer.called"
	SenderCalled   Checkpoint = "sender.called" // the second outbox's sender: the provider answered, the row not marked sent yet
	SenderMarked   Checkpoint = "sender.marked" // the second outbox's row marked sent
)

// Statement is one named SQL statement; the name is what a timeline shows.
type Statement struct {
	Name string
	SQL  string
}

// Event is what an actor reports when it reaches a checkpoint.
type Event struct {
	Actor      string
	Checkpoint Checkpoint
	Statement  *Statement   // the named statement that just ran (nil if none)
	Ran        []*Statement // every named statement run since the actor's previous checkpoint
	Rows       int64        // rows the statement affected or returned
	MessageIDs []uuid.UUID  // event ids involved (the batch, for the relay)
	PaymentID  uuid.UUID
	Delivery   int       // broker delivery count (1 = first delivery)
	Detail     Phrase    // short human text, e.g. "lease until 12:00:30"
	LeaseUntil time.Time // RelayClaimed: the lease the claim wrote (zero when a transaction holds the rows instead)
	// InboxKey is a consumer's inbox key when it is not the message id (the
	// wrong StrategyTraceID keys on the trace id); uuid.Nil otherwise.
	InboxKey uuid.UUID
	// External is how the consumer makes its external effect (S19), ""
	// when it makes none: what a crash at its checkpoints costs depends on it.
	External External
	// DedupDropped is true at RelayPublished when the broker answered that
	// it already had the id within its dedup window and dropped this copy.
	DedupDropped bool
}

// Hook is called synchronously by an actor at each checkpoint. It may block
// (a simulator pauses and steps actors this way). Returning ErrCrash,
// ErrFailCommit or ErrLoseCommitReply (or an error wrapping one) injects that
// fault; any other error stops the actor's operation and is returned wrapped.
type Hook func(ctx context.Context, ev Event) error
