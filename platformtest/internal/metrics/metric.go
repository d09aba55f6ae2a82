// This file holds the metric types: Counter, Gauge, Histogram.

package metrics

import (
	"math"
	"sync/atomic"
	"time"
)

// Counter is a monotonically increasing count. The zero value is ready.
type Counter struct{ v atomic.Uint64 }

// Inc adds one.
func (c *Counter) Inc() { c.v.Add(1) }

// Add adds n.
func (c *Counter) Add(n uint64) { c.v.Add(n) }

// Value returns the count.
func (c *Counter) Value() uint64 { return c.v.Load() }

// Gauge is a value that goes up and down. The zero value is ready.
type Gauge struct{ v atomic.Int64 }

// Add adds n (negative to subtract).
func (g *Gauge) Add(n int64) { g.v.Add(n) }

// Set sets the value.
func (g *Gauge) Set(n int64) { g.v.Store(n) }

// Value returns the value.
func (g *Gauge) Value() int64 { return g.v.Load() }

// Histogram counts observations in buckets with fixed upper bounds; it
// keeps their sum and count. Make one with NewHistogram.
type Histogram struct {
	bounds []float64       // upper bounds, increasing; +Inf is implicit
	counts []atomic.Uint64 // per bucket, not cumulative; last is +Inf
	sum    atomic.Uint64   // float64 bits
}

// DurationBuckets are upper bounds in seconds for latencies from 100 µs
// to 10 s.
var DurationBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10}

// NewHistogram returns a histogram with the given increasing upper
// bounds (nil: DurationBuckets).
func NewHistogram(bounds []float64) *Histogram {
	if bounds == nil {
		bounds = DurationBuckets
	}
	return &Histogram{bounds: bounds, counts: make([]atomic.Uint64, len(bounds)+1)}
}

// Observe records v.
func (h *Histogram) Observe(v float64) {
	i := 0
	for i < len(h.bounds) && v > h.bounds[i] {
		i++
	}
	h.counts[i].Add(1)
	for {
		old := h.sum.Load()
		if h.sum.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

// ObserveDuration records d in seconds.
func (h *Histogram) ObserveDuration(d time.Duration) { h.Observe(d.Seconds()) }

// HistogramValue is a histogram's state at one moment.
type HistogramValue struct {
	// Bounds are the buckets' upper bounds and Cumulative the number of
	// observations at most each bound (Prometheus's buckets, without +Inf).
	Bounds     []float64 `json:"bounds"`
	Cumulative []uint64  `json:"cumulative"`
	Count      uint64    `json:"count"`
	Sum        float64   `json:"sum"`
}

// Value returns the histogram's state. Observations that land while it
// reads may be in the count and not yet in the sum, or the reverse.
func (h *Histogram) Value() HistogramValue {
	v := HistogramValue{Bounds: h.bounds, Cumulative: make([]uint64, len(h.bounds))}
	var n uint64
	for i := range h.counts {
		n += h.counts[i].Load()
		if i < len(h.bounds) {
			v.Cumulative[i] = n
		}
	}
	v.Count = n
	v.Sum = math.Float64frombits(h.sum.Load())
	return v
}
