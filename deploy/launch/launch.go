package launch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/deploy"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/jetstream"
	"github.com/outboxlab/outboxlab/httpapi"
	"github.com/outboxlab/outboxlab/pg"
)

// Pipeline names a deployment's database (Pipeline_outbox). It is the same
// on every server, ours, shared or the user's, so that a deployment started
// again finds its outbox and carries on; deploy.Claim keeps a second
// deployment off it. Its stream is OUTBOXLAB_LIVE_<ID>, on subjects
// outboxlab.live_<id>.>, after the identity its database keeps
// (deploy.Identity): two deployments on one NATS never share a stream by
// chance. A database an older build ran on keeps OUTBOXLAB_LIVE, the
// stream that build made, and marks it as its own.
const Pipeline = "live"

// Database is the database that holds a deployment's payments: its
// pipeline's outbox, kept across restarts.
var Database = pg.NamespaceOf(Pipeline).Database("outbox")

// Choice is what serve --broker and live take beside the database flags:
// which broker, how many replicas of its stream, and whether to start over.
type Choice struct {
	Broker   deploy.BrokerChoice
	Replicas int  // 0: jetstream.DefaultReplicas
	Fresh    bool // --fresh: empty the database and the stream
	// Stream names the stream (--stream) instead of the identity's
	// OUTBOXLAB_LIVE_<ID>; it is refused if another deployment owns it.
	Stream string
}

// Check refuses a --replicas the broker cannot have, before anything boots.
func (c Choice) Check() error {
	switch {
	case c.Replicas < 0 || c.Replicas > 5:
		return badinput.Errorf("--replicas %d: want 1 to 5 (JetStream's limit), or leave it out: 3 on a cluster of three servers or more, else 1", c.Replicas)
	case c.Replicas > 1 && c.Broker.Kind == deploy.BrokerNATS:
		return badinput.Errorf("--replicas %d: the embedded JetStream is one server, which holds one copy; give the URLs of a cluster (--broker nats://a:4222,nats://b:4222,nats://c:4222) for more", c.Replicas)
	case c.Stream != "" && strings.ContainsAny(c.Stream, " \t\r\n.*>/\\"):
		return badinput.Errorf("--stream %q: a JetStream stream name has no spaces, dots, wildcards (* >) or slashes", c.Stream)
	}
	return nil
}

// Config is a deployment to start: the broker choice, its actors and who
// starts it (for the claim on the database).
type Config struct {
	Choice
	Relays, Workers int
	Strategy        engine.Strategy
	Relay           engine.RelayConfig
	AckWait         time.Duration
	// Who names the starter in the database's claim ("outboxlab live").
	Who string
	// OnError hears an actor's unexpected end; nil ignores it.
	OnError func(error)
	// Logger hears the deployment's changes of state; nil logs nothing.
	Logger *slog.Logger
	// database is the deployment's database, Database unless a test
	// runs two deployments on one server.
	database string
}

// Deployed is the outbox pipeline running for real: the deployment's
// handle, its broker, and what to undo when it ends.
type Deployed struct {
	*deploy.Deployment
	JS    *deploy.JetStream
	DBURL string // the pipeline's database, for psql
	// State says what the start found or did to the database and the
	// stream: emptied on purpose (--fresh), made, or kept and carried on.
	State string
	// ID is the deployment's identity (its stream's owner).
	ID deploy.ID
	// Away says why the broker did not answer at the start (nil when it
	// did): the stream is opened in the background once it answers.
	Away error
	// Answered says a server of the broker's answered at the start, and
	// Away is why it could not open the stream (a cluster without its
	// quorum answers so), not that nobody answers at the URL.
	Answered bool
	cancel   context.CancelFunc
	undo     []func() // in reverse order, after the actors ended
}

// Stop ends the actors, waits for them, and releases the broker and the
// database's claim. Nothing is dropped or deleted: a deployment started
// again carries on from what they hold.
func (d *Deployed) Stop() {
	d.cancel()
	if d.Deployment != nil {
		d.Deployment.Wait()
	}
	for _, f := range slices.Backward(d.undo) {
		f()
	}
}

// storeDir is where the embedded JetStream keeps its files: beside the
// cluster in the data directory (also when that data directory's server is
// another outboxlab's: the claim on the database keeps two deployments
// off one store), or, for a server given by --database-url, a directory of
// the state directory named after that database, so that a restart on the
// same database finds the same stream.
func storeDir(srv *pg.Server) (string, error) {
	if srv.DataDir != "" {
		return filepath.Join(srv.DataDir, pg.BrokerDir), nil
	}
	state, err := pg.DefaultStateDir()
	if err != nil {
		return "", err
	}
	u, err := url.Parse(srv.DatabaseURL(Database))
	if err != nil {
		return "", fmt.Errorf("the database's URL: %w", err)
	}
	sum := sha256.Sum256([]byte(u.User.Username() + "@" + u.Host + u.Path))
	return filepath.Join(state, pg.BrokerDir+"-"+hex.EncodeToString(sum[:6])), nil
}

// Start runs the outbox pipeline for real on srv until ctx ends or Stop:
// the engine on the system clock, its relays and consumers on JetStream
// (embedded, or at the URL c names), no simulator, the API (with its faults
// and /metrics) on e if e is not nil. It opens the deployment's database and
// stream as the last run left them (pending rows are then published, a key
// already used replays), unless c.Fresh empties both. A broker that does
// not answer does not stop it (Deployed.Away says why): the API takes
// payments on PostgreSQL alone and the stream is opened once the broker
// answers. A stream another deployment owns, or a database whose schema
// history is not outboxlab's, is bad input (a *badinput.Error).
func Start(ctx context.Context, srv *pg.Server, e *httpapi.Listener, c Config) (d *Deployed, err error) {
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(ctx)
	database := Database
	if c.database != "" {
		database = c.database
	}
	d = &Deployed{cancel: cancel, DBURL: srv.DatabaseURL(database)}
	defer func() {
		if err != nil {
			d.Stop()
			d = nil
		}
	}()
	created, err := srv.OpenDatabase(ctx, database)
	if errors.Is(err, pg.ErrSchemaHistory) {
		if !c.Fresh {
			return d, badinput.Errorf("%w: --fresh empties it and starts over", err)
		}
		if err = srv.DropDatabase(ctx, database); err == nil {
			created, err = srv.OpenDatabase(ctx, database)
		}
	}
	if err != nil {
		return d, err
	}
	release, err := deploy.Claim(ctx, d.DBURL, fmt.Sprintf("%s pid %d", c.Who, os.Getpid()))
	if err != nil {
		return d, fmt.Errorf("database %s: %w", database, err)
	}
	d.undo = append(d.undo, release)
	// A database made now gets a stream of its own identity's. One an
	// older build ran on (it existed before this start, with no identity) keeps the
	// stream that build made, OUTBOXLAB_LIVE, with what it still owes.
	var made bool
	d.ID, made, err = deploy.Identity(ctx, d.DBURL, time.Now(), func(id string) string {
		if created {
			return Pipeline + "_" + id
		}
		return Pipeline
	})
	if err != nil {
		return d, fmt.Errorf("database %s: %w", database, err)
	}
	if c.Fresh && !created {
		if err := emptyDatabase(ctx, d.DBURL); err != nil {
			return d, err
		}
	}
	dir := ""
	if c.Broker.Kind == deploy.BrokerNATS {
		if dir, err = storeDir(srv); err != nil {
			return d, err
		}
	}
	// A database made now owes nothing: a stream left from one that is gone
	// (a cluster started over, another server) would deliver events it
	// never wrote. Otherwise the stream is kept, its messages owed.
	// PurgeAcked: what both consumers acked is purged in bulk, a moment
	// after, instead of one synced removal per ack holding the store's lock
	// the publishes wait for (on one server, twice the messages a second).
	// The stream always has its consumers: OpenJetStream makes
	// them before anything is published. A stream an earlier run made with
	// interest retention is changed in place, its messages kept.
	cfg := jetstream.Config{Pipeline: d.ID.Pipeline, Stream: c.Stream,
		Owner: d.ID.ID, Adopt: made && !created, AckWait: c.AckWait,
		Replicas: c.Replicas, Fresh: c.Fresh || created, PurgeAcked: true}
	// A broker at a URL that does not answer does not stop the start: the
	// API takes payments into the outbox on PostgreSQL alone, and the
	// stream is opened in the background once the broker answers.
	j, err := deploy.ConnectJetStream(c.Broker, dir, true)
	if err != nil {
		return d, badinput.Errorf("--broker %s: %w", c.Broker, err)
	}
	d.JS = j
	d.undo = append(d.undo, j.Close)
	stream := jetstream.StreamName(cfg)
	var b *jetstream.Broker
	nobody := fmt.Errorf("%w (nobody answers at %s yet)", engine.ErrBrokerDown, c.Broker)
	if j.Conn.IsConnected() {
		octx, cancel := context.WithTimeout(ctx, startWait)
		b, err = j.Open(octx, cfg)
		cancel()
	} else {
		err = nobody
	}
	var notOwned *jetstream.NotOwnedError
	switch {
	case errors.As(err, &notOwned):
		return d, badinput.Errorf("--broker %s: %w (this one's database: %s); leave --stream out for this deployment's own stream, or give another name", c.Broker, err, database)
	case err != nil && !errors.Is(err, engine.ErrBrokerDown):
		err = fmt.Errorf("--broker %s: %w", c.Broker, err)
		if c.Broker.Kind == deploy.BrokerNATSURL {
			err = badinput.Wrap(err) // its cluster is too small for the replicas asked for, or the like
		}
		return d, err
	case err != nil && j.Conn.IsConnected():
		d.Away, d.Answered = err, true
		c.Logger.Error("stream unavailable at the start: the broker answers but cannot open it now (a cluster with a majority of its servers down answers so); the API takes payments into the outbox; the stream is opened once it can",
			"broker", c.Broker.String(), "stream", stream, "cause", err.Error())
	case err != nil:
		d.Away = err
		c.Logger.Error("broker away at the start: the API takes payments into the outbox; the stream is opened once the broker answers (a typo in --broker looks like this too)",
			"broker", c.Broker.String(), "stream", stream, "cause", err.Error())
	default:
		j.Broker = b
		c.Logger.Info("stream opened", "stream", stream, "stream_was", b.Opened(), "broker", j.Where)
	}
	switch {
	case c.Fresh:
		d.State = fmt.Sprintf("--fresh: database %s and stream %s emptied on purpose; starting over", database, stream)
	case created:
		d.State = fmt.Sprintf("database %s made, stream %s opened empty", database, stream)
	default:
		if d.State, err = keptState(ctx, d.DBURL, database, stream, b); err != nil {
			return d, err
		}
	}
	if d.Away != nil && !c.Fresh && !created {
		d.State += "; the broker has not answered yet: they wait in the outbox"
	} else if d.Away != nil {
		d.State = strings.Replace(d.State, "opened empty", "to be opened empty once the broker answers", 1)
	}
	o := deploy.Options{
		DatabaseURL: d.DBURL, HTTP: e, Server: j.Server,
		Relays: c.Relays, Workers: c.Workers, Strategy: c.Strategy, Relay: c.Relay,
		OnError: c.OnError, Logger: c.Logger, Away: d.Away,
	}
	if b != nil {
		o.Broker = b
	} else {
		o.Open = func(ctx context.Context) (deploy.Broker, error) {
			if !j.Conn.IsConnected() {
				return nil, nobody
			}
			// Each try waits startWait, as the start's did: a request a
			// cluster without its quorum left unanswered must not hold up
			// the try after its return.
			octx, cancel := context.WithTimeout(ctx, startWait)
			defer cancel()
			b, err := j.Open(octx, cfg)
			if err != nil {
				return nil, err
			}
			return b, nil
		}
	}
	d.Deployment, err = deploy.Launch(ctx, o)
	if err != nil {
		return d, err
	}
	return d, nil
}

// startWait bounds how long a start waits for the broker to open the
// stream before it serves the API without it, and each try of the
// background's open after. A healthy cluster answers well within it; a cluster that has
// lost its quorum may leave a request unanswered rather than refuse it, for
// as long as Open's own deadline (ten seconds), and payments would wait
// that long for an API that needs only PostgreSQL.
const startWait = 3 * time.Second

// emptyDatabase empties the deployment's tables (--fresh on a database
// that exists; the claim keeps any other deployment off it meanwhile).
func emptyDatabase(ctx context.Context, dbURL string) error {
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return fmt.Errorf("--fresh: %w", err)
	}
	defer pool.Close()
	if err := pg.Reset(ctx, pool); err != nil {
		return fmt.Errorf("--fresh: database %s: %w", Database, err)
	}
	return nil
}

// keptState says what a start found from the last run: its payments, the
// rows still owed to the broker (the relays publish them now) and the
// messages the stream still owes the consumers.
func keptState(ctx context.Context, dbURL, database, stream string, b *jetstream.Broker) (string, error) {
	payments, pending, err := deploy.Kept(ctx, dbURL)
	if err != nil {
		return "", fmt.Errorf("database %s: %w", database, err)
	}
	owed := "?"
	if b != nil {
		if in, err := b.Info(ctx); err == nil {
			owed = fmt.Sprint(in.Messages)
		}
	}
	return fmt.Sprintf("carrying on from the last run: %d payments, %d outbox rows to publish, %s messages in stream %s (--fresh starts over)",
		payments, pending, owed, stream), nil
}

// StreamLine states the stream's settings: what a replica, the window and
// AckWait promise.
func StreamLine(s jetstream.StreamSettings) string {
	copies := "1 replica"
	if s.Replicas > 1 {
		copies = fmt.Sprintf("%d replicas", s.Replicas)
	}
	if s.Cluster != "" {
		// Right after an update of its replicas, or while the cluster
		// elects one, the stream has no leader to name.
		leader := "leader " + s.Leader
		if s.Leader == "" {
			leader = "no leader yet"
		}
		copies += fmt.Sprintf(" on cluster %s (%s", s.Cluster, leader)
		if len(s.Peers) > 0 {
			copies += "; copies on " + strings.Join(s.Peers, ", ")
		}
		copies += ")"
	}
	leaves := s.Retention + " retention"
	if s.PurgeAcked {
		leaves = "a message purged once every consumer acked it"
	}
	return fmt.Sprintf("%s: %s, %s, dedup window %s, AckWait %s",
		s.Name, copies, leaves, s.Duplicates, s.AckWait)
}
