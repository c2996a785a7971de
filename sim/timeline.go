package sim

import (
	"encoding/json"
	"io"
	"time"
)

// Entry is one line of the timeline: something an actor did or had done to it.
type Entry struct {
	Seq        int        `json:"seq"`
	At         time.Time  `json:"at"` // virtual time
	Pipeline   string     `json:"pipeline"`
	Actor      string     `json:"actor"`
	Kind       EntryKind  `json:"kind"`
	Checkpoint string     `json:"checkpoint,omitempty"`
	Statement  string     `json:"statement,omitempty"`
	SQL        string     `json:"sql,omitempty"`
	Rows       int64      `json:"rows"`
	MessageIDs []string   `json:"message_ids,omitempty"`
	PaymentID  string     `json:"payment_id,omitempty"`
	Delivery   int        `json:"delivery,omitempty"`
	LeaseUntil *time.Time `json:"lease_until,omitempty"` // a relay's claim: until when it leased the rows
	// DedupDropped: a relay's publish the broker acked as a duplicate of an
	// id it took within its dedup window, and dropped.
	DedupDropped bool   `json:"dedup_dropped,omitempty"`
	Explain      string `json:"explain"`
	// Say is Explain as a catalog sentence, for a screen in another
	// language (nil: Explain only).
	Say *Text `json:"-"`
}

// EntryKind is what a timeline entry records; its value is the word the
// timeline, its JSON lines and the story print.
type EntryKind string

// The kinds of entry.
const (
	KindCheckpoint EntryKind = "checkpoint" // an actor reached a checkpoint (a statement ran)
	KindAnswer     EntryKind = "answer"     // a unit of work's summary: what the API answered, what a relay published
	KindCommand    EntryKind = "command"    // a client's request or an operator's command
	KindFault      EntryKind = "fault"      // a fault armed or done (a stall, the broker down, a duplicate)
	KindCrash      EntryKind = "crash"      // an actor died
	KindRestart    EntryKind = "restart"    // a crashed actor came back
	KindBlocked    EntryKind = "blocked"    // an actor waits on a row lock inside PostgreSQL
	KindError      EntryKind = "error"      // an actor's unit of work failed
	KindClock      EntryKind = "clock"      // the virtual clock moved
	KindNote       EntryKind = "note"       // nothing to do: said, so a key press is not silent
	KindSkip       EntryKind = "skip"       // a command for an actor this mode does not run
	KindStuck      EntryKind = "stuck"      // a drain that cannot go on without the learner
	KindDown       EntryKind = "down"       // PostgreSQL went down
)

// The timeline's actors that are no process: their names are words, said
// in the screen's language.
const (
	ActorClient   = "client"   // who sends the requests
	ActorClock    = "clock"    // the virtual clock
	ActorOperator = "operator" // who requeues a dead letter, runs retention
)

// WriteJSONLines writes entries as JSON lines.
func WriteJSONLines(w io.Writer, entries []Entry) error {
	enc := json.NewEncoder(w)
	for _, e := range entries {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return nil
}
