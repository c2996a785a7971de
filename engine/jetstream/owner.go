package jetstream

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// ownerPrefix starts the Description of a stream a deployment owns.
const ownerPrefix = "outboxlab deployment "

// OwnerMark is the Description that marks a stream as owner's ("" for no
// owner). A Description is kept by every nats-server with JetStream, 2.9
// included, where stream metadata is not.
func OwnerMark(owner string) string {
	if owner == "" {
		return ""
	}
	return ownerPrefix + owner
}

// ownerOf reads the owner a stream's Description names, "" when it names
// none (a stream made by hand, or by a build before owners).
func ownerOf(description string) string {
	owner, ok := strings.CutPrefix(description, ownerPrefix)
	if !ok {
		return ""
	}
	return owner
}

// NotOwnedError is Open refusing a stream that is not its Config.Owner's:
// another deployment's, or one no deployment marked.
type NotOwnedError struct {
	Stream string
	// Owner is the deployment the stream's mark names, "" for none.
	Owner string
	// Want is the deployment that asked for it.
	Want string
}

func (e *NotOwnedError) Error() string {
	if e.Owner == "" {
		return fmt.Sprintf("stream %s exists and is no outboxlab deployment's (its description does not say %q): deployment %s leaves it alone",
			e.Stream, ownerPrefix+"…", e.Want)
	}
	return fmt.Sprintf("stream %s belongs to outboxlab deployment %s, not to this one (deployment %s): its messages are owed to that deployment's consumers, and this one would take them",
		e.Stream, e.Owner, e.Want)
}

// checkOwner refuses stream if it exists and is not owner's; adopt lets a
// stream with no owner's mark through, to be marked by ensureStream. No
// owner checks nothing.
func checkOwner(ctx context.Context, js jetstream.JetStream, stream, owner string, adopt bool) error {
	if owner == "" {
		return nil
	}
	st, err := js.Stream(ctx, stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil
	}
	if err != nil {
		return brokerErr("stream "+stream, err)
	}
	have := ownerOf(st.CachedInfo().Config.Description)
	if have == owner || (have == "" && adopt) {
		return nil
	}
	return &NotOwnedError{Stream: stream, Owner: have, Want: owner}
}
