package telemetry

import (
	"context"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// DeploymentMetrics is a deployment's one registry: its figures, the Go
// runtime's and the process's collectors, and the HTTP API's requests.
type DeploymentMetrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// NewDeploymentMetrics registers c, the Go and process collectors, and
// the request counts and durations Instrument observes.
func NewDeploymentMetrics(c *DeploymentCollector) *DeploymentMetrics {
	m := &DeploymentMetrics{reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "http_requests_total",
			Help: "HTTP requests the deployment's API answered, by route (the pattern it matched, \"unmatched\" for none), method and status code."},
			[]string{"route", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "http_request_duration_seconds",
			Help:    "Wall-clock seconds from a request's headers read to its answer written, by route, method and status code.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}},
			[]string{"route", "method", "code"}),
	}
	m.reg.MustRegister(c, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests, m.duration)
	return m
}

// Handler serves the registry at GET /metrics.
func (m *DeploymentMetrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{MaxRequestsInFlight: 4, EnableOpenMetrics: true})
}

// routeKey holds, in a request's context, where the route it matched is
// written once the mux has served it.
type routeKey struct{}

// Instrument counts and times every request mux serves (promhttp's
// instrumentation), labelled with the ServeMux pattern the request matched
// (its path part: "/payments/{id}"), so a route's figures do not split by
// payment id.
func (m *DeploymentMetrics) Instrument(mux http.Handler) http.Handler {
	route := promhttp.WithLabelFromCtx("route", func(ctx context.Context) string {
		if p, ok := ctx.Value(routeKey{}).(*string); ok && *p != "" {
			return *p
		}
		return "unmatched"
	})
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux.ServeHTTP(w, r)
		if p, ok := r.Context().Value(routeKey{}).(*string); ok && r.Pattern != "" {
			pattern := r.Pattern
			if _, path, ok := strings.Cut(pattern, " "); ok {
				pattern = path // "POST /payments": the method is its own label
			}
			*p = pattern
		}
	})
	h := promhttp.InstrumentHandlerDuration(m.duration, promhttp.InstrumentHandlerCounter(m.requests, inner, route), route)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), routeKey{}, new(string))))
	})
}
