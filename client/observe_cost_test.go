// This file holds the benchmark of what the observation adds to one
// acknowledged publish on the client, without the round trip, whose cost
// (tens of microseconds of CPU, cmd/flockbench) hides it: the no-hooks
// path's checks and Stats counters, and the counting hook's path.

package client

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client/internal/engine"
)

type costHook struct{ n, bytes, nanos atomic.Int64 }

func (h *costHook) OnPublish(_ context.Context, _ Op, out Outcome) {
	h.n.Add(1)
	h.bytes.Add(int64(out.Bytes))
	h.nanos.Add(int64(out.Latency))
}

// BenchmarkObservationCost runs, per operation, what publish adds around
// the engine's PUBLISH: with no hooks, the checks and the counters of
// Stats (the link's message and byte counters included); with a counting
// hook, the path of publishObserved.
func BenchmarkObservationCost(b *testing.B) {
	ctx := context.Background()
	const topic, size = "com.example.bench", 243
	b.Run("none", func(b *testing.B) {
		c := &Client{set: &settings{}}
		var w engine.Counters
		b.ReportAllocs()
		for b.Loop() {
			if c.obs.traffic() || c.set.tracer != nil {
				b.Fatal("observed")
			}
			c.stats.pendingAcks.Add(1)
			w.MessagesOut.Add(1)
			w.BytesOut.Add(size)
			w.MessagesIn.Add(1)
			w.BytesIn.Add(16)
			c.stats.pendingAcks.Add(-1)
		}
	})
	b.Run("counting", func(b *testing.B) {
		c := &Client{set: &settings{}}
		c.set.hooks.add(&costHook{})
		c.obs = &c.set.hooks
		var w engine.Counters
		b.ReportAllocs()
		for b.Loop() {
			if !c.obs.traffic() {
				b.Fatal("not observed")
			}
			start := time.Now()
			desc := c.opOf("Publish", topic, "")
			octx := c.obs.startSend(ctx, desc)
			sent := size
			c.stats.pendingAcks.Add(1)
			w.MessagesOut.Add(1)
			w.BytesOut.Add(size)
			w.MessagesIn.Add(1)
			w.BytesIn.Add(16)
			c.stats.pendingAcks.Add(-1)
			c.obs.sent(octx, desc, Outcome{Bytes: sent, Latency: time.Since(start)})
		}
	})
}
