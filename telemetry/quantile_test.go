package telemetry_test

import (
	"bytes"
	"context"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/telemetry"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// histogramQuantile is PromQL's histogram_quantile over one scraped
// classic histogram: the bucket the rank falls in, linear interpolation
// within it (from 0 for the first), the last finite bound for +Inf.
func histogramQuantile(q float64, h *dto.Histogram) float64 {
	bs := h.GetBucket()
	rank := q * float64(h.GetSampleCount())
	lower, below := 0.0, 0.0
	for _, b := range bs {
		upper, cum := b.GetUpperBound(), float64(b.GetCumulativeCount())
		if cum >= rank {
			if math.IsInf(upper, 1) {
				return lower
			}
			return lower + (upper-lower)*(rank-below)/(cum-below)
		}
		lower, below = upper, cum
	}
	return lower
}

// bucketOf is the index of the bucket v falls in (its first bound ≥ v).
func bucketOf(v float64, h *dto.Histogram) int {
	for i, b := range h.GetBucket() {
		if v <= b.GetUpperBound() {
			return i
		}
	}
	return len(h.GetBucket())
}

// A quantile PromQL computes from the scraped latency histogram is within
// one bucket of the true quantile of the values observed, and within a
// factor of two of it (a bucket is a doubling), from sub-millisecond runs
// to minute-long outages. Coarse bounds (0.001, 1, 2, 5 … s) would read a
// deployment's p50 of 4 ms as about half a second, a run of microseconds
// as a p99 of 0.99 ms, and latencies around a minute with an error of up
// to 50%.
func TestHistogramQuantileIsWithinABucket(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(26, 2))
	for _, c := range []struct {
		name string
		draw func() time.Duration
	}{
		{"a deployment (log-normal, median 4 ms)", func() time.Duration {
			return time.Duration(4e6 * math.Exp(rng.NormFloat64()))
		}},
		{"serve under the virtual clock (3-400 µs)", func() time.Duration {
			return time.Duration(3e3 + rng.Float64()*397e3)
		}},
		{"an outage in the simulator (20-120 s)", func() time.Duration {
			return time.Duration((20 + rng.Float64()*100) * 1e9)
		}},
	} {
		var counters engine.Counters
		var observed []float64
		for range 5000 {
			d := c.draw()
			counters.OccurredToPublished.Observe(d)
			observed = append(observed, d.Seconds())
		}
		slices.Sort(observed)
		col := telemetry.NewDeploymentCollector(telemetry.DeploymentSource{
			Counters: &counters,
			Database: func(context.Context) (telemetry.DeploymentFigures, error) { return telemetry.DeploymentFigures{}, nil },
		})
		srv := httptest.NewServer(telemetry.DeploymentHandler(col))
		resp, err := http.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		srv.Close()
		parser := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := parser.TextToMetricFamilies(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		h := metric(t, fams, "outboxlab_occurred_to_published_seconds", "pipeline", "outbox").GetHistogram()
		for _, q := range []float64{0.5, 0.9, 0.99} {
			truth := observed[int(math.Ceil(q*float64(len(observed))))-1]
			est := histogramQuantile(q, h)
			t.Logf("%s: p%v true %.6g s, from the histogram %.6g s (×%.3f)", c.name, q*100, truth, est, est/truth)
			if d := bucketOf(est, h) - bucketOf(truth, h); d < -1 || d > 1 {
				t.Errorf("%s: p%v %.6g s is %d buckets from the true %.6g s", c.name, q*100, est, d, truth)
			}
			if est < truth/2 || est > truth*2 {
				t.Errorf("%s: p%v %.6g s, the true one %.6g s: more than a factor of two apart", c.name, q*100, est, truth)
			}
		}
	}
}
