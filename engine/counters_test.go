package engine

import (
	"reflect"
	"testing"
	"time"
)

// The histogram counts every sample in the first bucket whose bound it does
// not pass (a bound is inclusive), cumulatively; one above the last bound
// is in Count and Sum only.
func TestLatencyHistogram(t *testing.T) {
	t.Parallel()
	var l Latency
	for _, d := range []time.Duration{3 * time.Microsecond, time.Second, 1500 * time.Millisecond, 31 * time.Second, 2 * time.Hour} {
		l.Observe(d)
	}
	s := l.Summary()
	if s.Count != 5 || s.Sum != 3*time.Microsecond+2500*time.Millisecond+31*time.Second+2*time.Hour {
		t.Errorf("count %d sum %v", s.Count, s.Sum)
	}
	// Bounds 0.5 ms, 1 ms, 2 ms … 512 ms, 1.024 s, 2.048 s … 32.768 s … 4194.304 s.
	want := map[time.Duration]int64{500 * time.Microsecond: 1, 512 * time.Millisecond: 1, 1024 * time.Millisecond: 2,
		2048 * time.Millisecond: 3, 16384 * time.Millisecond: 3, 32768 * time.Millisecond: 4, 4194304 * time.Millisecond: 4}
	found := 0
	for i, le := range LatencyBuckets {
		if n, ok := want[le]; ok {
			found++
			if s.Buckets[i] != n {
				t.Errorf("le %v: %d samples, want %d", le, s.Buckets[i], n)
			}
		}
		if i > 0 && le != 2*LatencyBuckets[i-1] {
			t.Errorf("le %v after %v: not twice the bound before", le, LatencyBuckets[i-1])
		}
		if i > 0 && s.Buckets[i] < s.Buckets[i-1] {
			t.Errorf("le %v: %d, below the bucket before (%d): not cumulative", le, s.Buckets[i], s.Buckets[i-1])
		}
	}
	if found != len(want) {
		t.Errorf("%d of the bounds %v are LatencyBuckets' %v", found, want, LatencyBuckets)
	}
	var empty Latency
	if empty.Summary().Buckets != [len(LatencyBuckets)]int64{} {
		t.Errorf("an empty latency has samples in its buckets")
	}
}

// Values reads each counter into the field of the same name.
func TestCounterValues(t *testing.T) {
	t.Parallel()
	var c Counters
	c.add(&c.Claimed, 1)
	c.add(&c.Published, 2)
	c.add(&c.PublishFailures, 3)
	c.add(&c.Marked, 4)
	c.add(&c.RetriesScheduled, 5)
	c.add(&c.DeadLettered, 6)
	c.add(&c.LeasesRecovered, 7)
	c.add(&c.LostLeases, 8)
	c.add(&c.Processed, 9)
	c.duplicates("accounting", 4)
	c.duplicates("notifications", 6)
	c.add(&c.VersionGaps, 11)
	want := CounterValues{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, map[string]int64{"accounting": 4, "notifications": 6}}
	if got := c.Values(); !reflect.DeepEqual(got, want) {
		t.Errorf("values %+v\nwant %+v", got, want)
	}
}
