// This file holds what a stage counts: acknowledged operations with
// their latency (a log-linear histogram, about 1.6 % wide buckets, so that
// millions of samples cost a fixed few kilobytes), failures by URI, joins.

package main

import (
	"context"
	"errors"
	"math/bits"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flockgo/ironflock/client"
)

// histBuckets covers latencies up to 2^38 µs (about 3 days).
const histBuckets = 128 + 32*64

// histogram counts latencies in microseconds.
type histogram struct {
	counts [histBuckets]atomic.Int64
	max    atomic.Int64
	n      atomic.Int64
}

// bucketOf returns the bucket of v µs: exact below 128, then 64
// sub-buckets per power of two.
func bucketOf(v int64) int {
	if v < 128 {
		if v < 0 {
			return 0
		}
		return int(v)
	}
	e := bits.Len64(uint64(v)) - 7 // v >> e is in 64…127
	i := 128 + (e-1)*64 + int(v>>e) - 64
	if i >= histBuckets {
		return histBuckets - 1
	}
	return i
}

// bucketTop returns the largest value of bucket i.
func bucketTop(i int) int64 {
	if i < 128 {
		return int64(i)
	}
	e := (i-128)/64 + 1
	m := int64((i-128)%64 + 64)
	return (m+1)<<e - 1
}

func (h *histogram) add(d time.Duration) {
	v := d.Microseconds()
	h.counts[bucketOf(v)].Add(1)
	h.n.Add(1)
	for {
		m := h.max.Load()
		if v <= m || h.max.CompareAndSwap(m, v) {
			return
		}
	}
}

// quantile returns the q-quantile (0 < q ≤ 1), as its bucket's top, but
// never above the maximum seen.
func (h *histogram) quantile(q float64) time.Duration {
	n := h.n.Load()
	if n == 0 {
		return 0
	}
	rank := int64(q*float64(n) + 0.5)
	if rank < 1 {
		rank = 1
	}
	var seen int64
	for i := range h.counts {
		seen += h.counts[i].Load()
		if seen >= rank {
			return time.Duration(min(bucketTop(i), h.max.Load())) * time.Microsecond
		}
	}
	return time.Duration(h.max.Load()) * time.Microsecond
}

// meter is one stage's counts.
type meter struct {
	start   time.Time
	acked   atomic.Int64 // operations acknowledged (appends, publications, calls)
	appends atomic.Int64 // appends acknowledged
	served  atomic.Int64 // invocations answered
	events  atomic.Int64 // events received on device.subscribe's topic
	joins   atomic.Int64 // sessions joined (first joins and rejoins)
	failed  atomic.Int64
	skipped atomic.Int64 // operations not made: the device's previous one was still waiting
	lat     histogram    // acknowledgement latency
	joinLat histogram    // from Start to joined

	mu     sync.Mutex
	errors map[errorKey]int64
}

// errorKey is what failures are counted by: the scenario's operation and
// the reason's URI.
type errorKey struct{ op, uri string }

func newMeter() *meter { return &meter{start: time.Now(), errors: map[errorKey]int64{}} }

// ok counts an acknowledged operation that took d.
func (m *meter) ok(d time.Duration) {
	m.acked.Add(1)
	m.lat.add(d)
}

// fail counts a failed operation op by its URI: the WAMP error's URI, else
// the SDK's reason.
func (m *meter) fail(op string, err error) {
	m.failed.Add(1)
	key := errorKey{op, errorKind(err)}
	m.mu.Lock()
	m.errors[key]++
	m.mu.Unlock()
}

// errorKind names err for the report: its WAMP URI, or the sentinel it
// matches.
func errorKind(err error) string {
	if uri := client.WampURI(err); uri != "" {
		return uri
	}
	for _, k := range []struct {
		err  error
		name string
	}{
		{client.ErrOutcomeUnknown, "outcome unknown"},
		{client.ErrNotSent, "not sent"},
		{client.ErrConnectionLost, "connection lost"},
		{client.ErrNotConnected, "not connected"},
		{client.ErrTimeout, "timeout"},
		{client.ErrStopped, "stopped"},
		{client.ErrCredentialRefused, "credential refused"},
	} {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	switch {
	case errors.Is(err, context.Canceled):
		return "context canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline exceeded"
	}
	// The reason without the operation's URI, so that the failures of
	// thousands of devices count under one key.
	var oe *client.OpError
	if errors.As(err, &oe) {
		return oe.Err.Error()
	}
	return err.Error()
}

// errorsSorted returns the failures by URI, most first.
func (m *meter) errorsSorted() []errorCount {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]errorCount, 0, len(m.errors))
	for k, n := range m.errors {
		out = append(out, errorCount{Op: k.op, URI: k.uri, Count: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		if out[i].Op != out[j].Op {
			return out[i].Op < out[j].Op
		}
		return out[i].URI < out[j].URI
	})
	return out
}

// errorCount is one line of a stage's failures.
type errorCount struct {
	// Op is the operation: "append TABLE", "publish TOPIC", "call
	// FUNCTION", "register FUNCTION", "join", "stop".
	Op string `json:"op"`
	// URI is the WAMP error's URI, else the SDK's reason ("outcome
	// unknown", "connection lost", "timeout", …).
	URI   string `json:"uri"`
	Count int64  `json:"count"`
}
