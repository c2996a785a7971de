package telemetry

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// otlpTracesPath is where an OTLP/HTTP collector takes traces.
const otlpTracesPath = "/v1/traces"

// NewOTLPExporter returns an exporter that sends spans to a collector's
// OTLP/HTTP endpoint as protobuf (for a future --otlp ENDPOINT). endpoint is
// "host:port" (plain HTTP, what a local collector listens on, 4318 by
// convention) or an http or https URL, whose path defaults to /v1/traces.
// The spans carry the simulator's virtual times.
//
// onError, when not nil, hears each failed export, which is then not
// returned: the SDK would otherwise report it to otel's global error
// handler, whose default writes to stderr, under the simulator's screen.
func NewOTLPExporter(ctx context.Context, endpoint string, onError func(error)) (sdktrace.SpanExporter, error) {
	u, err := otlpURL(endpoint)
	if err != nil {
		return nil, err
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(u.String()))
	if err != nil {
		return nil, fmt.Errorf("otlp exporter for %s: %w", u, err)
	}
	if onError == nil {
		return exp, nil
	}
	return reportingExporter{SpanExporter: exp, onError: onError}, nil
}

// otlpURL turns an --otlp argument into the URL spans are posted to.
func otlpURL(endpoint string) (*url.URL, error) {
	if endpoint == "" {
		return nil, fmt.Errorf("otlp endpoint: empty (want host:port or an http(s) URL)")
	}
	if !strings.Contains(endpoint, "://") {
		host, port, err := net.SplitHostPort(endpoint)
		if err != nil || port == "" {
			return nil, fmt.Errorf("otlp endpoint %q: want host:port or an http(s) URL", endpoint)
		}
		return &url.URL{Scheme: "http", Host: net.JoinHostPort(host, port), Path: otlpTracesPath}, nil
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, fmt.Errorf("otlp endpoint %q: %w", endpoint, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("otlp endpoint %q: want an http or https URL with a host", endpoint)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = otlpTracesPath
	}
	return u, nil
}

// reportingExporter hands export failures to onError instead of the SDK.
type reportingExporter struct {
	sdktrace.SpanExporter
	onError func(error)
}

// ExportSpans exports spans; a failure goes to onError and is not returned.
func (e reportingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if err := e.SpanExporter.ExportSpans(ctx, spans); err != nil {
		e.onError(fmt.Errorf("otlp export of %d spans: %w", len(spans), err))
	}
	return nil
}
