package sim

import (
	"embed"
	"strings"
)

//go:embed sql/*.sql
var sqlFS embed.FS

// statement reads sql/<name>.sql: the simulator's own queries (the oracle,
// the tables the learner reads, the lease witness) live beside engine's, one
// named statement per file. A missing file is a build defect that every test
// run catches, so it panics at package initialisation.
func statement(name string) string {
	body, err := sqlFS.ReadFile("sql/" + name + ".sql")
	if err != nil {
		panic("sim: missing statement " + name + ": " + err.Error())
	}
	return strings.TrimSpace(string(body))
}

var (
	sqlWatchLeases         = statement("watch_leases")
	sqlDoubleLeases        = statement("double_leases")
	sqlOracle              = statement("oracle")
	sqlMissingEffects      = statement("missing_effects")
	sqlNextDue             = statement("next_due")
	sqlOutboxEdge          = statement("outbox_edge")
	sqlLockState           = statement("lock_state")
	sqlTerminateActor      = statement("terminate_actor")
	sqlDeadLetters         = statement("dead_letters")
	sqlAttemptsOf          = statement("attempts_of")
	sqlLeaseEnd            = statement("lease_end")
	sqlBlockedByDeadLetter = statement("blocked_by_dead_letter")
	sqlBehindCursor        = statement("behind_cursor")
	sqlStranded            = statement("stranded")
	sqlLeasesRecovered     = statement("leases_recovered")
	sqlCharges             = statement("charges")
	sqlUnchargedPayments   = statement("uncharged_payments")
	sqlSlotRetained        = statement("slot_retained")
	sqlPendingIDs          = statement("pending_ids")
	sqlBackends            = statement("backends")
	sqlBackendsOf          = statement("backends_of")
	sqlTableSizes          = statement("table_sizes")
	sqlIdentitySequences   = statement("identity_sequences")
	sqlProgress            = statement("progress")
	sqlOrdering            = statement("ordering")
	sqlParkedWaiting       = statement("parked_waiting")
)
