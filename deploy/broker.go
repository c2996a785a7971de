package deploy

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/jetstream"
)

// BrokerKind is which broker --broker names.
type BrokerKind string

// The brokers serve can run on.
const (
	// BrokerInProcess is the engine's in-process broker, under the
	// simulator's virtual clock (the step-by-step one).
	BrokerInProcess BrokerKind = "inprocess"
	// BrokerNATS is JetStream embedded in the process, its store under the
	// data directory.
	BrokerNATS BrokerKind = "nats"
	// BrokerNATSURL is a NATS server or cluster reached at a nats:// URL.
	BrokerNATSURL BrokerKind = "nats-url"
)

// BrokerChoice is a parsed --broker value.
type BrokerChoice struct {
	Kind BrokerKind
	URL  string // for BrokerNATSURL
}

// String is the --broker value c was parsed from.
func (c BrokerChoice) String() string {
	if c.Kind == BrokerNATSURL {
		return c.URL
	}
	return string(c.Kind)
}

// ParseBroker reads --broker: inprocess, nats, or nats://HOST:PORT (several
// URLs of one cluster separated by commas).
func ParseBroker(s string) (BrokerChoice, error) {
	switch s {
	case "", string(BrokerInProcess):
		return BrokerChoice{Kind: BrokerInProcess}, nil
	case string(BrokerNATS):
		return BrokerChoice{Kind: BrokerNATS}, nil
	}
	for _, one := range strings.Split(s, ",") {
		u, err := url.Parse(strings.TrimSpace(one))
		if err != nil || (u.Scheme != "nats" && u.Scheme != "tls") || u.Host == "" {
			return BrokerChoice{}, fmt.Errorf("--broker %q: want inprocess, nats (JetStream embedded) or nats://HOST:PORT", s)
		}
	}
	return BrokerChoice{Kind: BrokerNATSURL, URL: s}, nil
}

// JetStream is a JetStream broker and what it runs on.
type JetStream struct {
	*jetstream.Broker
	Conn   *nats.Conn
	Server *jetstream.Server // nil when the broker is reached at a URL
	// Where says where it runs, for the screen.
	Where string
}

// Close closes the broker (if OpenJetStream opened one), its connection and
// the embedded server.
func (j *JetStream) Close() {
	if j.Broker != nil {
		j.Broker.Close()
	}
	j.closeConn()
}

// OpenJetStream connects (ConnectJetStream, which fails at once for a URL
// that does not answer) and opens the pipeline's stream (Open): the
// deployment's broker, up, or an error.
func OpenJetStream(ctx context.Context, c BrokerChoice, storeDir string, cfg jetstream.Config) (*JetStream, error) {
	j, err := ConnectJetStream(c, storeDir, false)
	if err != nil {
		return nil, err
	}
	if j.Broker, err = j.Open(ctx, cfg); err != nil {
		j.closeConn()
		return nil, err
	}
	return j, nil
}

// ConnectJetStream starts (embedded, its store in storeDir) or dials the
// JetStream c names. later dials a URL that does not answer all the same:
// the client keeps trying in the background (IsConnected says when it is
// connected); without it such a URL is an error at once. A URL list (comma
// separated) reconnects to any of its servers.
func ConnectJetStream(c BrokerChoice, storeDir string, later bool) (*JetStream, error) {
	j := &JetStream{}
	var err error
	switch c.Kind {
	case BrokerNATS:
		if j.Server, err = jetstream.StartServer(storeDir); err != nil {
			return nil, err
		}
		if j.Conn, err = j.Server.Connect("outboxlab", 0); err != nil {
			j.Server.Stop()
			return nil, err
		}
		j.Where = "JetStream embedded in this process (no port), store " + storeDir
	case BrokerNATSURL:
		dial := jetstream.Dial
		if later {
			dial = jetstream.DialLater
		}
		if j.Conn, err = dial(c.URL, "outboxlab", 0); err != nil {
			return nil, err
		}
		j.Where = "JetStream at " + c.URL
		if j.Conn.IsConnected() {
			j.Where = "JetStream at " + j.Conn.ConnectedUrlRedacted()
			if n := jetstream.ClusterSize(j.Conn); n > 1 {
				j.Where += fmt.Sprintf(" (cluster %s of %d servers)", j.Conn.ConnectedClusterName(), n)
			}
		}
	default:
		return nil, fmt.Errorf("broker %q is not JetStream", c.Kind)
	}
	return j, nil
}

// Open opens the pipeline's stream and subscribes every consumer: the
// stream is created if missing and updated in place if its settings
// differ (cfg.Replicas among them); it is deleted only when cfg.Fresh
// asks: what it holds was published and not consumed yet, and a
// deployment started again must deliver it. A broker that does not answer
// is engine.ErrBrokerDown: Open may be called again.
func (j *JetStream) Open(ctx context.Context, cfg jetstream.Config) (*jetstream.Broker, error) {
	b, err := jetstream.Open(ctx, j.Conn, cfg)
	if err != nil {
		return nil, err
	}
	for _, name := range Consumers {
		if err := b.Subscribe(ctx, engine.TopicPayments, name); err != nil {
			b.Close()
			return nil, err
		}
	}
	return b, nil
}

func (j *JetStream) closeConn() {
	j.Conn.Close()
	if j.Server != nil {
		j.Server.Stop()
	}
}
