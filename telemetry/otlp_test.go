package telemetry

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// collector is a real HTTP listener that takes OTLP/HTTP protobuf export
// requests, as a collector's receiver does, and keeps what it was sent.
type collector struct {
	srv *httptest.Server

	mu       sync.Mutex
	paths    []string
	names    []string
	services []string
	starts   []time.Time
	status   int // answered instead of 200 when set
}

func newCollector(t *testing.T) *collector {
	c := &collector{}
	c.srv = httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *collector) serve(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	raw, err := io.ReadAll(body)
	var req coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(raw, &req)
	}
	if err != nil || r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want a protobuf OTLP export request", http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paths = append(c.paths, r.URL.Path)
	if c.status != 0 {
		http.Error(w, "refused", c.status)
		return
	}
	for _, rs := range req.GetResourceSpans() {
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" {
				c.services = append(c.services, kv.GetValue().GetStringValue())
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				c.names = append(c.names, s.GetName())
				c.starts = append(c.starts, time.Unix(0, int64(s.GetStartTimeUnixNano())).UTC())
			}
		}
	}
	resp, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(resp)
}

// Spans made on a provider with the OTLP exporter reach a real listener as
// protobuf, every one, with their virtual start times, under service.name.
func TestOTLPExporterSendsSpans(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		endpoint func(c *collector) string
		path     string
	}{
		{"host:port", func(c *collector) string { return c.srv.Listener.Addr().String() }, "/v1/traces"},
		{"a URL without a path", func(c *collector) string { return c.srv.URL }, "/v1/traces"},
		{"a URL with its own path", func(c *collector) string { return c.srv.URL + "/otlp/v1/traces" }, "/otlp/v1/traces"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			col := newCollector(t)
			ctx := context.Background()
			exp, err := NewOTLPExporter(ctx, tc.endpoint(col), func(err error) { t.Errorf("export failed: %v", err) })
			if err != nil {
				t.Fatal(err)
			}
			tp := NewTracerProvider(TracingConfig{Exporter: exp, IDs: NewIDGenerator(3)})
			tr := tp.Tracer("test")
			for i, name := range []string{"create payment", "publish payments", "process payments"} {
				at := t0.Add(time.Duration(i) * time.Second)
				_, s := tr.Start(ctx, name, trace.WithTimestamp(at))
				s.End(trace.WithTimestamp(at.Add(time.Millisecond)))
			}
			if err := tp.Shutdown(ctx); err != nil { // flushes the batch
				t.Fatal(err)
			}
			col.mu.Lock()
			defer col.mu.Unlock()
			if got := strings.Join(col.names, ", "); got != "create payment, publish payments, process payments" {
				t.Errorf("the collector received %d spans: %s", len(col.names), got)
			}
			if len(col.paths) == 0 || col.paths[0] != tc.path || len(col.services) == 0 || col.services[0] != "outboxlab" {
				t.Errorf("posted to %v as %v", col.paths, col.services)
			}
			if len(col.starts) != 3 || !col.starts[2].Equal(t0.Add(2*time.Second)) {
				t.Errorf("start times %v: want the virtual ones", col.starts)
			}
		})
	}
}

// A refused export goes to onError, not to otel's global handler.
func TestOTLPExportFailureGoesToOnError(t *testing.T) {
	t.Parallel()
	col := newCollector(t)
	col.status = http.StatusBadRequest // not retried
	var got []error
	exp, err := NewOTLPExporter(context.Background(), col.srv.URL, func(err error) { got = append(got, err) })
	if err != nil {
		t.Fatal(err)
	}
	f := newFake(t, 0)
	f.span(trace.SpanContext{}, "create payment", "api", "e", 0, 0)
	if err := exp.ExportSpans(context.Background(), f.rec.Spans()); err != nil {
		t.Errorf("ExportSpans returned %v: want it handed to onError", err)
	}
	if len(got) != 1 || !strings.Contains(got[0].Error(), "otlp export of 1 spans") {
		t.Errorf("onError heard %v", got)
	}
	_ = exp.Shutdown(context.Background())
}

// What --otlp accepts, and what it refuses with a reason.
func TestOTLPEndpoint(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want, err string }{
		{"127.0.0.1:4318", "http://127.0.0.1:4318/v1/traces", ""},
		{"localhost:4318", "http://localhost:4318/v1/traces", ""},
		{"[::1]:4318", "http://[::1]:4318/v1/traces", ""},
		{"http://collector:4318", "http://collector:4318/v1/traces", ""},
		{"https://otel.example.com/", "https://otel.example.com/v1/traces", ""},
		{"https://otel.example.com/custom", "https://otel.example.com/custom", ""},
		{"", "", "empty"},
		{"localhost", "", "want host:port"},
		{"ftp://collector:21", "", "want an http or https URL"},
		{"http://", "", "want an http or https URL"},
	} {
		u, err := otlpURL(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want one saying %q", tc.in, err, tc.err)
		case tc.err == "" && (err != nil || u.String() != tc.want):
			t.Errorf("%q: %v %v, want %s", tc.in, u, err, tc.want)
		}
	}
	if _, err := NewOTLPExporter(context.Background(), "localhost", nil); err == nil {
		t.Error("NewOTLPExporter took a bad endpoint")
	}
}
