package telemetry

// Traces (S22): the engine's actors trace into a TracerProvider made here.
// A TraceRecorder keeps a run's finished spans in memory, bounded, and
// gives one trace back as a tree — parent/child and links, in virtual time
// — for a pane or `outboxlab story` to draw; an OTLP exporter sends the
// same spans to a collector for those who have one.

import (
	"cmp"
	"context"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/outboxlab/outboxlab/engine"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// DefaultTraceLimit is how many finished spans a TraceRecorder keeps by
// default: a payment through the outbox to two consumers makes about ten.
const DefaultTraceLimit = 20000

// TraceRecorder is an sdktrace.SpanProcessor that keeps the last spans to
// end, at most its limit (the oldest are forgotten first). Safe for
// concurrent use.
type TraceRecorder struct {
	mu      sync.Mutex
	limit   int
	ring    []recorded // in end order from head once full
	head    int
	seq     uint64
	dropped uint64
}

// recorded is a finished span and the order it ended in.
type recorded struct {
	span sdktrace.ReadOnlySpan
	seq  uint64
}

// NewTraceRecorder returns a recorder keeping at most limit spans
// (DefaultTraceLimit when limit <= 0).
func NewTraceRecorder(limit int) *TraceRecorder {
	if limit <= 0 {
		limit = DefaultTraceLimit
	}
	return &TraceRecorder{limit: limit}
}

// OnStart does nothing: only finished spans are kept.
func (r *TraceRecorder) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd keeps s, forgetting the oldest span when the recorder is full.
func (r *TraceRecorder) OnEnd(s sdktrace.ReadOnlySpan) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	rec := recorded{span: s, seq: r.seq}
	if len(r.ring) < r.limit {
		r.ring = append(r.ring, rec)
		return
	}
	r.ring[r.head] = rec
	r.head = (r.head + 1) % r.limit
	r.dropped++
}

// Shutdown does nothing: the spans stay readable.
func (r *TraceRecorder) Shutdown(context.Context) error { return nil }

// ForceFlush does nothing: spans are kept as they end.
func (r *TraceRecorder) ForceFlush(context.Context) error { return nil }

// Reset forgets every span: a rewind replays the run, which traces again.
func (r *TraceRecorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ring, r.head, r.dropped = nil, 0, 0
}

// Len is how many spans the recorder holds.
func (r *TraceRecorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.ring)
}

// Dropped is how many spans were forgotten to stay within the limit since
// the recorder was made or reset.
func (r *TraceRecorder) Dropped() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// snapshot returns the spans held, in the order they ended.
func (r *TraceRecorder) snapshot() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]recorded, 0, len(r.ring))
	out = append(out, r.ring[r.head:]...)
	return append(out, r.ring[:r.head]...)
}

// Spans returns the spans held, in the order they ended.
func (r *TraceRecorder) Spans() []sdktrace.ReadOnlySpan {
	recs := r.snapshot()
	out := make([]sdktrace.ReadOnlySpan, len(recs))
	for i, rec := range recs {
		out[i] = rec.span
	}
	return out
}

// TraceIDs lists the traces the recorder holds spans of, in the order of
// their first span to end.
func (r *TraceRecorder) TraceIDs() []trace.TraceID {
	seen := map[trace.TraceID]bool{}
	var out []trace.TraceID
	for _, rec := range r.snapshot() {
		if id := rec.span.SpanContext().TraceID(); !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// TraceOf returns the trace an event belongs to, by its id (the
// messaging.message.id of the engine's spans): the trace of the API
// transaction that wrote it, else of a publish of it, else the trace a
// consumer's span links to for it. A capture continues its payment's
// trace, so one trace may hold several events (S22).
func (r *TraceRecorder) TraceOf(eventID string) (trace.TraceID, bool) {
	rank := map[string]int{engine.StageAPI: 0, engine.StagePublish: 1}
	best, found := 3, trace.TraceID{}
	for _, rec := range r.snapshot() {
		s := rec.span
		if attrOf(s.Attributes(), semconv.MessagingMessageIDKey).AsString() == eventID {
			if k, ok := rank[attrOf(s.Attributes(), engine.AttrStage).AsString()]; ok && k < best {
				best, found = k, s.SpanContext().TraceID()
			}
		}
		if best < 2 {
			continue
		}
		for _, l := range s.Links() {
			if attrOf(l.Attributes, semconv.MessagingMessageIDKey).AsString() == eventID && l.SpanContext.IsValid() {
				best, found = 2, l.SpanContext.TraceID()
			}
		}
	}
	return found, best < 3
}

// Via says how a span hangs where it is in a tree.
type Via int

const (
	// ViaRoot: the span is a root of the tree (its parent, if any, was not
	// recorded: a caller's span, a crashed process's, or forgotten).
	ViaRoot Via = iota
	// ViaParent: the span is its parent's child.
	ViaParent
	// ViaLink: the span is of another trace and links to the span it hangs
	// under (a consumer's transaction to the publish its delivery carried,
	// a claim to the events it leased).
	ViaLink
)

// Trace is one trace's spans as a tree, with the spans of other traces that
// link into it (and their descendants) hung under what they link to.
type Trace struct {
	ID trace.TraceID
	// Start and End bound every span of the tree, in virtual time.
	Start, End time.Time
	// Roots are the tree's roots, by start (then by the order they ended).
	Roots []*SpanNode
	// Spans counts the nodes of the tree.
	Spans int
}

// SpanNode is one span of a Trace.
type SpanNode struct {
	Name        string
	Kind        trace.SpanKind
	SpanContext trace.SpanContext
	// Parent is the span's parent in its own trace (invalid for a root).
	Parent trace.SpanContext
	Via    Via
	// Actor and Stage are the engine's outboxlab.actor and outboxlab.stage.
	Actor, Stage string
	// Start is virtual, as the engine's clock said; Offset is Start from
	// the trace's Start.
	Start    time.Time
	Offset   time.Duration
	Duration time.Duration
	Status   codes.Code
	// StatusMessage says why the span failed.
	StatusMessage string
	Attributes    []attribute.KeyValue
	Events        []SpanEvent
	Links         []SpanLink
	Children      []*SpanNode

	seq uint64
}

// SpanEvent is a span's event: the engine's checkpoints.
type SpanEvent struct {
	Name       string
	At         time.Time
	Offset     time.Duration // At from the trace's Start
	Attributes []attribute.KeyValue
}

// SpanLink is a link of a span; InTree says whether its target is in the tree.
type SpanLink struct {
	SpanContext trace.SpanContext
	Attributes  []attribute.KeyValue
	InTree      bool
}

// Attr returns the value of the span's attribute k (an empty Value when unset).
func (n *SpanNode) Attr(k attribute.Key) attribute.Value { return attrOf(n.Attributes, k) }

// Walk calls fn for every node, depth first, in the tree's order.
func (t Trace) Walk(fn func(n *SpanNode, depth int)) {
	var walk func(ns []*SpanNode, depth int)
	walk = func(ns []*SpanNode, depth int) {
		for _, n := range ns {
			fn(n, depth)
			walk(n.Children, depth+1)
		}
	}
	walk(t.Roots, 0)
}

// spanKey identifies a span across traces.
type spanKey struct {
	trace trace.TraceID
	span  trace.SpanID
}

func keyOf(sc trace.SpanContext) spanKey { return spanKey{sc.TraceID(), sc.SpanID()} }

// Trace returns the trace id's spans as a tree. The spans of other traces
// join it by their links: a span that links to a span of the trace hangs
// under it, and its descendants come with it (a consumer's transaction
// linked to the publish its delivery carried, and its ACK). Only links into
// the trace itself are followed, one hop: a claim links to every event of
// its batch, and following links through it would draw them all. The zero
// Trace (no Roots) says the recorder holds nothing of it.
func (r *TraceRecorder) Trace(id trace.TraceID) Trace {
	recs := r.snapshot()
	in := map[spanKey]bool{}
	for _, rec := range recs {
		if rec.span.SpanContext().TraceID() == id {
			in[keyOf(rec.span.SpanContext())] = true
		}
	}
	own := maps.Clone(in) // the trace's own spans, which links may point to
	for _, rec := range recs {
		for _, l := range rec.span.Links() {
			if own[keyOf(l.SpanContext)] {
				in[keyOf(rec.span.SpanContext())] = true
			}
		}
	}
	// The descendants of what joined: each pass adds one more level.
	for grew := len(in) > len(own); grew; {
		grew = false
		for _, rec := range recs {
			s := rec.span
			if k := keyOf(s.SpanContext()); !in[k] && s.Parent().IsValid() && in[keyOf(s.Parent())] {
				in[k], grew = true, true
			}
		}
	}
	nodes := map[spanKey]*SpanNode{}
	var order []*SpanNode // in end order
	for _, rec := range recs {
		if k := keyOf(rec.span.SpanContext()); in[k] {
			n := newNode(rec)
			nodes[k] = n
			order = append(order, n)
		}
	}
	t := Trace{ID: id, Spans: len(order)}
	under := map[*SpanNode]*SpanNode{} // a node's place: parent, or the span it links to
	for _, n := range order {
		for i, l := range n.Links {
			n.Links[i].InTree = nodes[keyOf(l.SpanContext)] != nil
		}
		if p := nodes[keyOf(n.Parent)]; n.Parent.IsValid() && p != nil {
			n.Via, under[n] = ViaParent, p
			continue
		}
		if n.SpanContext.TraceID() == id {
			continue // a root of the trace itself
		}
		for _, l := range n.Links {
			if target := nodes[keyOf(l.SpanContext)]; target != nil && own[keyOf(l.SpanContext)] {
				n.Via, under[n] = ViaLink, target
				break
			}
		}
	}
	// Links could make a cycle (no engine span does): a node whose chain of
	// places comes back to itself is made a root instead.
	for _, n := range order {
		seen := map[*SpanNode]bool{n: true}
		for p := under[n]; p != nil; p = under[p] {
			if seen[p] {
				delete(under, n)
				n.Via = ViaRoot
				break
			}
			seen[p] = true
		}
	}
	for _, n := range order {
		if p := under[n]; p != nil {
			p.Children = append(p.Children, n)
		} else {
			n.Via = ViaRoot
			t.Roots = append(t.Roots, n)
		}
		if t.Start.IsZero() || n.Start.Before(t.Start) {
			t.Start = n.Start
		}
		if end := n.Start.Add(n.Duration); end.After(t.End) {
			t.End = end
		}
	}
	byStart := func(a, b *SpanNode) int { return cmp.Or(a.Start.Compare(b.Start), cmp.Compare(a.seq, b.seq)) }
	slices.SortFunc(t.Roots, byStart)
	for _, n := range order {
		slices.SortFunc(n.Children, byStart)
		n.Offset = n.Start.Sub(t.Start)
		for i := range n.Events {
			n.Events[i].Offset = n.Events[i].At.Sub(t.Start)
		}
	}
	return t
}

func newNode(rec recorded) *SpanNode {
	s := rec.span
	n := &SpanNode{
		Name: s.Name(), Kind: s.SpanKind(), SpanContext: s.SpanContext(), Parent: s.Parent(),
		Start: s.StartTime(), Duration: s.EndTime().Sub(s.StartTime()),
		Status: s.Status().Code, StatusMessage: s.Status().Description,
		Attributes: s.Attributes(), seq: rec.seq,
	}
	n.Actor = n.Attr(engine.AttrActor).AsString()
	n.Stage = n.Attr(engine.AttrStage).AsString()
	for _, e := range s.Events() {
		n.Events = append(n.Events, SpanEvent{Name: e.Name, At: e.Time, Attributes: e.Attributes})
	}
	for _, l := range s.Links() {
		n.Links = append(n.Links, SpanLink{SpanContext: l.SpanContext, Attributes: l.Attributes})
	}
	return n
}

func attrOf(attrs []attribute.KeyValue, k attribute.Key) attribute.Value {
	for _, kv := range attrs {
		if kv.Key == k {
			return kv.Value
		}
	}
	return attribute.Value{}
}

// TracingConfig says where a TracerProvider's spans go.
type TracingConfig struct {
	// Recorder keeps the spans for the screen; nil keeps none.
	Recorder *TraceRecorder
	// Exporter sends the spans on (NewOTLPExporter), in batches; nil sends none.
	Exporter sdktrace.SpanExporter
	// IDs makes trace and span ids; nil: random ids. The simulator passes
	// an IDGenerator, reseeded when a run starts over, so a replay makes
	// the same ids (and stores the same traceparents).
	IDs sdktrace.IDGenerator
	// Service is service.name; default "outboxlab".
	Service string
}

// NewTracerProvider returns the provider the engine's actors take (their
// configs' TracerProvider), never the global one. It records every span: a
// simulation is small, and a client's traceparent flagged "not sampled"
// must not hide the trace the learner asked for. Shut it down to flush the
// exporter.
func NewTracerProvider(cfg TracingConfig) *sdktrace.TracerProvider {
	service := cmp.Or(cfg.Service, "outboxlab")
	opts := []sdktrace.TracerProviderOption{
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithResource(resource.NewWithAttributes(semconv.SchemaURL, semconv.ServiceName(service))),
	}
	if cfg.Recorder != nil {
		opts = append(opts, sdktrace.WithSpanProcessor(cfg.Recorder))
	}
	if cfg.Exporter != nil {
		opts = append(opts, sdktrace.WithBatcher(cfg.Exporter))
	}
	if cfg.IDs != nil {
		opts = append(opts, sdktrace.WithIDGenerator(cfg.IDs))
	}
	return sdktrace.NewTracerProvider(opts...)
}

// IDGenerator is an sdktrace.IDGenerator whose ids follow from a seed
// alone: the same run makes the same ids, and so stores the same
// traceparents. Safe for concurrent use.
type IDGenerator struct {
	mu  sync.Mutex
	rnd *rand.Rand
}

// NewIDGenerator returns an IDGenerator drawing from seed.
func NewIDGenerator(seed uint64) *IDGenerator {
	g := &IDGenerator{}
	g.Reseed(seed)
	return g
}

// Reseed starts the ids over from seed, as when a run starts over (a
// reset, a rewind, another scene).
func (g *IDGenerator) Reseed(seed uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.rnd = rand.New(rand.NewPCG(seed, seed^0x6f7574626f786c61)) // "outboxla"
}

// NewIDs returns a new trace id and span id, never zero.
func (g *IDGenerator) NewIDs(context.Context) (trace.TraceID, trace.SpanID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var tid trace.TraceID
	for !tid.IsValid() {
		g.fill(tid[:])
	}
	return tid, g.spanID()
}

// NewSpanID returns a new span id, never zero.
func (g *IDGenerator) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.spanID()
}

func (g *IDGenerator) spanID() trace.SpanID {
	var sid trace.SpanID
	for !sid.IsValid() {
		g.fill(sid[:])
	}
	return sid
}

func (g *IDGenerator) fill(b []byte) {
	for i := 0; i < len(b); i += 8 {
		v := g.rnd.Uint64()
		for j := i; j < len(b) && j < i+8; j++ {
			b[j] = byte(v >> (8 * (j - i)))
		}
	}
}
