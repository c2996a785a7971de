package engine

import (
	"embed"
	"sort"
	"strings"
)

//go:embed sql/*.sql
var sqlFS embed.FS

// load reads sql/<name>.sql; a missing file is a build defect, caught by
// every test run, so it panics at package initialisation.
func load(name string) *Statement {
	body, err := sqlFS.ReadFile("sql/" + name + ".sql")
	if err != nil {
		panic("engine: missing statement " + name + ": " + err.Error())
	}
	st := &Statement{Name: name, SQL: strings.TrimSpace(string(body))}
	registry = append(registry, st)
	return st
}

var registry []*Statement

// The named statements. Each lives in sql/<name>.sql.
var (
	stmtInsertPayment            = load("insert_payment")
	stmtInsertOutboxMessage      = load("insert_outbox_message")
	stmtInsertIdempotencyKey     = load("insert_idempotency_key")
	stmtFindIdempotencyKey       = load("find_idempotency_key")
	stmtNotifyOutbox             = load("notify_outbox")
	stmtListenOutbox             = load("listen_outbox")
	stmtInsertPaymentsBatch      = load("insert_payments_batch")
	stmtInsertOutboxBatch        = load("insert_outbox_messages_batch")
	stmtInsertKeysBatch          = load("insert_idempotency_keys_batch")
	stmtFindKeysBatch            = load("find_idempotency_keys_batch")
	stmtBumpPaymentVersion       = load("bump_payment_version")
	stmtClaimBatch               = load("claim_batch")
	stmtClaimPartition           = load("claim_partition")
	stmtClaimOneInFlight         = load("claim_one_in_flight")
	stmtJoinLanes                = load("join_lanes")
	stmtParkMessage              = load("park_message")
	stmtHoldPosition             = load("hold_position")
	stmtUnparkNext               = load("unpark_next")
	stmtCountHeldBack            = load("count_held_back")
	stmtPollBySeq                = load("poll_by_seq")
	stmtInsertEffectOutbox       = load("insert_effect_outbox")
	stmtNextEffect               = load("next_effect")
	stmtMarkEffectSent           = load("mark_effect_sent")
	stmtAdvanceCursor            = load("advance_cursor")
	stmtRelaxCommit              = load("relax_commit")
	stmtMarkPublished            = load("mark_published")
	stmtReleaseLeases            = load("release_leases")
	stmtScheduleRetry            = load("schedule_retry")
	stmtDeadLetter               = load("dead_letter")
	stmtRequeue                  = load("requeue")
	stmtInsertInboxMessage       = load("insert_inbox_message")
	stmtReadPosition             = load("read_position")
	stmtAdvancePosition          = load("advance_position")
	stmtInsertLedgerEntry        = load("insert_ledger_entry")
	stmtInsertNotification       = load("insert_notification")
	stmtFindLedgerEntry          = load("find_ledger_entry")
	stmtFindNotification         = load("find_notification")
	stmtInsertInboxBatch         = load("insert_inbox_messages_batch")
	stmtDeleteInboxMessages      = load("delete_inbox_messages")
	stmtReadPositionsBatch       = load("read_positions_batch")
	stmtAdvancePositionsBatch    = load("advance_positions_batch")
	stmtInsertLedgerBatch        = load("insert_ledger_entries_batch")
	stmtInsertNotificationsBatch = load("insert_notifications_batch")
	stmtPruneOutbox              = load("prune_outbox")
	stmtPruneInbox               = load("prune_inbox")
	stmtOutboxMetrics            = load("outbox_metrics")
)

// Statements lists every named statement the engine can run, by name, so a
// user interface can show a statement's text from the name in an Event.
func Statements() []Statement {
	out := make([]Statement, 0, len(registry)+3)
	for _, st := range append([]*Statement{stmtBegin, stmtCommit, stmtRollback}, registry...) {
		out = append(out, *st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
