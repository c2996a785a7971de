package workshop

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/outboxlab/outboxlab/badinput"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the room's figures on /metrics (--http): one registry of its
// own, so nothing global leaks in.
type metrics struct {
	reg       *prometheus.Registry
	connected prometheus.Gauge
	passed    prometheus.Counter
	onStep    prometheus.Histogram
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		connected: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "outboxlab_workshop_learners_connected", Help: "Learners connected to the room now.",
		}),
		passed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "outboxlab_workshop_steps_passed_total", Help: "Lesson steps passed by the room's learners since it started.",
		}),
		onStep: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "outboxlab_workshop_step_seconds",
			Help:    "Time from a step's start to its checks passing, per step passed.",
			Buckets: []float64{15, 30, 60, 120, 180, 300, 600, 900, 1800},
		}),
	}
	m.reg.MustRegister(m.connected, m.passed, m.onStep)
	return m
}

func (m *metrics) stepPassed(d time.Duration) {
	m.passed.Inc()
	m.onStep.Observe(d.Seconds())
}

// serve serves /metrics at addr until stop; it returns the address it
// listens on.
func (m *metrics) serve(addr string, _ *Room) (stop func(), bound string, err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", badinput.Errorf("--http %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err // the room goes on without its metrics
		}
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, ln.Addr().String(), nil
}
