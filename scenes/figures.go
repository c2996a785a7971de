package scenes

// Figure is one figure of the oracle: the name an `expect` line, a lesson's
// check and `run --json` use, the short label the screen shows, and what it
// counts and where it is read (always from what the database and the broker
// hold, never from a memory of events).
type Figure struct {
	Name    string
	Label   string // the Guarantees pane's label (the catalog says it in Spanish)
	Meaning string
}

// FigureTable is the one table of figures, in the order the documentation
// lists them; sim reads each by its name, and a test keeps the two equal.
var FigureTable = []Figure{
	{"payments", "payments", "committed payments (SELECT count(*) FROM payments)"},
	{"outbox_rows", "outbox rows", "rows in outbox_messages"},
	{"published", "published", "outbox rows marked published"},
	{"publishes", "publishes", "messages the broker accepted; a republish of the same id counts again (the broker's log)"},
	{"deliveries", "deliveries", "deliveries the broker handed out, redeliveries and duplicates included"},
	{"duplicates_delivered", "dup. delivered", "deliveries beyond the first, per consumer and message"},
	{"duplicates_ignored", "dup. ignored", "deliveries an inbox recognised (0 rows inserted) and ignored"},
	{"effects", "effects", "ledger entries plus notifications"},
	{"ledger_entries", "ledger entries", "rows in ledger_entries (accounting's effect)"},
	{"notifications", "notifications", "rows in notifications (notifications' effect)"},
	{"lost_events", "lost events", "committed payments a consumer never heard of, with nothing left in flight"},
	{"phantom_effects", "phantom effects", "effects for payments that do not exist"},
	{"duplicate_effects", "duplicate effects", "effects applied more than once for one message and consumer"},
	{"suppressed_effects", "suppressed effects", "published events a consumer was handed and settled without their effect (taken for a duplicate of another event: S22's inbox keyed on the trace id); outbox rows against each consumer's effects, less what the broker still holds for it"},
	{"charges", "charges", "charges the card provider made (SELECT count(*) FROM provider.charges: the third party's own database)"},
	{"lost_charges", "lost charges", "payments accounting applied (a ledger entry) that the provider never charged, with nothing left in flight or in the second outbox (S19: the marker committed before the call)"},
	{"double_charges", "double charges", "payments the provider charged more than once (S19: a call repeated without an Idempotency-Key)"},
	{"dead_lettered", "dead-lettered", "outbox rows dead-lettered after their last attempt"},
	{"pending", "pending", "outbox rows neither published nor dead-lettered"},
	{"max_attempts", "max attempts", "the most attempts any outbox row took"},
	{"version_gaps", "version gaps", "deliveries refused for their aggregate version (out of order)"},
	{"out_of_order", "out of order", "effects a consumer applied before an earlier version of the same aggregate (inbox_messages' processed_at against outbox_messages' aggregate_version)"},
	{"parked", "parked", "events a parking consumer (versions: park) holds ahead of their version now (rows in parked_messages)"},
	{"held_back", "held back", "relay claims that leased nothing while ready rows waited behind the ordering (an earlier version in flight, or another relay's lane): the throughput an ordering gives up"},
	{"lost_leases", "lost leases", "marks and retries refused because another worker holds the lease now"},
	{"leases_recovered", "leases recovered", "claims that took a row over from another worker whose lease had expired (S24's expired leases recovered; the lease witness)"},
	{"double_leases", "double leases", "claims that took a row while another worker's lease on it was still running (the lease witness)"},
	{"crashes", "crashes", "actors crashed by a fault"},
	{"conflicts", "422 conflicts", "422 answers to a reused Idempotency-Key with another body"},
	{"replays", "replays", "stored responses returned for a repeated Idempotency-Key"},
	{"slot_retained_bytes", "slot WAL", "WAL written since the CDC relay last confirmed its slot (pg_current_wal_lsn less confirmed_flush_lsn, every database's writes): what the server must keep for the slot while the relay is down; 0 without relay: cdc"},
}

// Figures are the figure names, as an `expect` line may give them.
var Figures = func() []string {
	out := make([]string, len(FigureTable))
	for i, f := range FigureTable {
		out[i] = f.Name
	}
	return out
}()

// FigureLabel is a figure's label on screen ("" for a name no figure has).
func FigureLabel(name string) string {
	for _, f := range FigureTable {
		if f.Name == name {
			return f.Label
		}
	}
	return ""
}
