package httpapi

import (
	"context"
	"testing"

	"github.com/outboxlab/outboxlab/engine"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// With a TracerProvider the writer's span is the trace's: a child of the
// request's traceparent, or the root of a new trace when it had none or an
// invalid one, and the traceparent stored with the payment is that span's.
func TestTracedWriterStoresItsSpan(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	b := setup(t, DBConfig{TracerProvider: tp})
	for _, tc := range []struct{ name, header string }{{"valid", sentTrace}, {"absent", ""}, {"invalid", "00-xyz"}} {
		var headers []string
		if tc.header != "" {
			headers = []string{"Traceparent", tc.header}
		}
		c := mustCreated(t, b.post(t, validBody, headers...))
		ended := rec.Ended()
		s := ended[len(ended)-1]
		if s.Name() != engine.SpanCreatePayment {
			t.Fatalf("%s: last span %q, want %q", tc.name, s.Name(), engine.SpanCreatePayment)
		}
		sc := s.SpanContext()
		var stored string
		if err := b.pool.QueryRow(context.Background(), "SELECT trace_parent FROM payments WHERE id = $1", c.PaymentID).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if want := "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-01"; stored != want {
			t.Errorf("%s: stored %q, want the span's %q", tc.name, stored, want)
		}
		if tc.name == "valid" {
			if sc.TraceID().String() != sentTrace[3:35] || s.Parent().SpanID().String() != sentTrace[36:52] {
				t.Errorf("valid: span in trace %s under %s, want %s under %s", sc.TraceID(), s.Parent().SpanID(), sentTrace[3:35], sentTrace[36:52])
			}
		} else if s.Parent().IsValid() {
			t.Errorf("%s: span has parent %s, want a root", tc.name, s.Parent().SpanID())
		}
	}
}
