package telemetry

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Handler serves the collector's figures in Prometheus' exposition formats
// (text, protobuf and OpenMetrics by negotiation), from a registry of its
// own: never the global one, so nothing else registered in the process
// shows up beside them. Mount it at GET /metrics.
func Handler(c *Collector) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		// A scrape reads the simulation and opens a connection per
		// pipeline: a few at once are plenty; more are answered 503.
		MaxRequestsInFlight: 4,
		EnableOpenMetrics:   true,
	})
}
