package jetstream

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// DefaultReplicas is the replica count a new stream gets when Config does
// not say: 3 on a cluster of three servers or more (a stream that outlives
// any one of them: a quorum of two still accepts writes), 1 otherwise (a
// single server, or JetStream embedded, has nowhere to put a copy).
func DefaultReplicas(nc *nats.Conn) int {
	if ClusterSize(nc) >= 3 {
		return 3
	}
	return 1
}

// ClusterSize is how many servers the cluster nc is connected to has, as
// the server tells its clients: the client URLs of its cluster's members,
// which it sends in INFO (and again when one joins or leaves). 1 when the
// server is in no cluster.
func ClusterSize(nc *nats.Conn) int {
	if nc.ConnectedClusterName() == "" {
		return 1
	}
	return max(1, len(nc.Servers()))
}

// StreamSettings are the stream's settings in force, as the server holds
// them: what the live screen states (its dedup window, retention, the
// consumers' AckWait, and on a cluster its replicas and leader).
type StreamSettings struct {
	Name     string
	Subjects []string
	Replicas int
	// Retention is the server's policy: "interest" (a message goes at the
	// last ack of the consumers it was for) or "limits" (it stays until
	// something removes it: with PurgeAcked, this broker's purge).
	Retention string
	// PurgeAcked says the broker purges what every consumer acked
	// (Config.PurgeAcked): a message goes a moment after its last ack.
	PurgeAcked bool
	Storage    string // "file"
	// Duplicates is the dedup window: a publish whose Nats-Msg-Id the
	// stream took within it is acked as a duplicate and dropped.
	Duplicates time.Duration
	// AckWait is the consumers' (this broker's config): a delivery not
	// acked within it is delivered again.
	AckWait time.Duration
	// Cluster is the cluster's name ("" on a single server); Leader the
	// server that leads the stream now, Peers the others holding a copy.
	Cluster, Leader string
	Peers           []string
}

// Settings are the stream's settings as Open left them (no round trip:
// safe for a screen to call on every frame). StreamInfo asks the server.
func (b *Broker) Settings() StreamSettings { return b.settings }

// StreamInfo asks the server for the stream's settings now, its leader and
// peers included (they change when a server dies).
func (b *Broker) StreamInfo(ctx context.Context) (StreamSettings, error) {
	cctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	st, err := b.js.Stream(cctx, b.stream)
	if err != nil {
		return StreamSettings{}, brokerErr("stream info "+b.stream, err)
	}
	si, err := st.Info(cctx)
	if err != nil {
		return StreamSettings{}, brokerErr("stream info "+b.stream, err)
	}
	return settingsOf(si, b.cfg), nil
}

func settingsOf(si *jetstream.StreamInfo, cfg Config) StreamSettings {
	s := StreamSettings{Name: si.Config.Name, Subjects: si.Config.Subjects, Replicas: si.Config.Replicas,
		Retention: strings.ToLower(si.Config.Retention.String()), Storage: strings.ToLower(si.Config.Storage.String()),
		Duplicates: si.Config.Duplicates, AckWait: cfg.AckWait,
		PurgeAcked: cfg.PurgeAcked && si.Config.Retention == jetstream.LimitsPolicy}
	if c := si.Cluster; c != nil {
		s.Cluster, s.Leader = c.Name, c.Leader
		for _, p := range c.Replicas {
			s.Peers = append(s.Peers, p.Name)
		}
	}
	return s
}

// knowsAtomicBatches says a server of version (x.y.z, as it says in INFO)
// keeps a stream's AllowAtomicPublish: 2.12 and later. An unreadable
// version is taken to know it.
func knowsAtomicBatches(version string) bool {
	var major, minor int
	if _, err := fmt.Sscanf(version, "%d.%d", &major, &minor); err != nil {
		return true
	}
	return major > 2 || (major == 2 && minor >= 12)
}

// ensureStream makes the pipeline's stream hold want: created if missing,
// updated in place if it differs in what this broker manages (subjects,
// storage, retention, dedup window, replicas, atomic batches), left as it
// is otherwise. Retention changes in place between interest and limits
// (nats-server 2.10 and later): to limits every message stays, to interest
// those every consumer acked go (and all of them with no consumer, which
// it refuses). It never deletes it: a stream that exists holds messages
// published and not consumed yet, which a restart must carry on with.
// Settings a user set by hand that this broker does not manage are kept.
// auto says the replica count was
// not asked for: an existing stream with more replicas keeps them (a count
// raised by hand is not lowered).
func ensureStream(ctx context.Context, js jetstream.JetStream, want jetstream.StreamConfig, auto bool) (*jetstream.StreamInfo, string, error) {
	st, err := js.Stream(ctx, want.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		st, err = js.CreateStream(ctx, want)
		if err != nil {
			return nil, "", replicasErr("create stream "+want.Name, want.Replicas, err)
		}
		si, err := st.Info(ctx)
		return si, OpenedCreated, brokerErr("stream info "+want.Name, err)
	}
	if err != nil {
		return nil, "", brokerErr("stream "+want.Name, err)
	}
	si, err := st.Info(ctx)
	if err != nil {
		return nil, "", brokerErr("stream info "+want.Name, err)
	}
	have := si.Config
	if auto && have.Replicas > want.Replicas {
		want.Replicas = have.Replicas
	}
	if want.Description == "" {
		want.Description = have.Description // no owner: a description set by hand stays
	}
	if slices.Equal(have.Subjects, want.Subjects) && have.Storage == want.Storage && have.Retention == want.Retention &&
		have.Duplicates == want.Duplicates && max(have.Replicas, 1) == want.Replicas && have.AllowAtomicPublish == want.AllowAtomicPublish &&
		have.Description == want.Description {
		return si, OpenedKept, nil
	}
	if have.Retention == jetstream.LimitsPolicy && want.Retention == jetstream.InterestPolicy && si.State.Consumers == 0 && si.State.Msgs > 0 {
		// The server would drop every message: interest retention with no
		// consumer keeps nothing. They are owed; a broker that purges its
		// acked messages (PurgeAcked) opens it as it is.
		return nil, "", fmt.Errorf("stream %s holds %d messages and no consumer: changing its retention from limits to interest would drop them all; open it with PurgeAcked",
			want.Name, si.State.Msgs)
	}
	cfg := have
	cfg.Subjects, cfg.Storage, cfg.Retention, cfg.Duplicates, cfg.Replicas = want.Subjects, want.Storage, want.Retention, want.Duplicates, want.Replicas
	cfg.AllowAtomicPublish, cfg.Description = want.AllowAtomicPublish, want.Description
	st, err = js.UpdateStream(ctx, cfg)
	if err != nil {
		return nil, "", replicasErr(fmt.Sprintf("update stream %s in place (replicas %d → %d)", want.Name, have.Replicas, want.Replicas), want.Replicas, err)
	}
	si, err = st.Info(ctx)
	return si, fmt.Sprintf("%s (replicas %d → %d, retention %s → %s)", OpenedUpdated, max(have.Replicas, 1), want.Replicas,
		strings.ToLower(have.Retention.String()), strings.ToLower(want.Retention.String())), brokerErr("stream info "+want.Name, err)
}

// What Open did to the stream (Broker.Opened): made it, updated it in
// place (followed by what changed), or found it as it wanted it.
const (
	OpenedCreated = "created"
	OpenedUpdated = "updated in place"
	OpenedKept    = "kept as it was"
)

// replicasErr says what to do when the cluster cannot hold the replicas
// asked for (fewer servers with JetStream than replicas).
func replicasErr(what string, replicas int, err error) error {
	var api *jetstream.APIError
	if errors.As(err, &api) && slices.Contains([]jetstream.ErrorCode{errInsufficientResources, errNoPeers, errReplicasNotSupported}, api.ErrorCode) {
		return fmt.Errorf("%s: %d replicas: %w: the cluster has fewer JetStream servers than that; ask for fewer (--replicas) or add servers", what, replicas, err)
	}
	return brokerErr(what, err)
}

// The server's error codes for a replica count it cannot place
// (nats-server's errors.json; nats.go names none of them).
const (
	errNoPeers               jetstream.ErrorCode = 10005 // JSClusterNoPeersErrF
	errInsufficientResources jetstream.ErrorCode = 10023 // JSInsufficientResourcesErr
	errReplicasNotSupported  jetstream.ErrorCode = 10074 // JSStreamReplicasNotSupportedErr
)
