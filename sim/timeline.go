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
	Kind       string     `json:"kind"` // checkpoint, crash, fault, command, answer, error, clock
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
