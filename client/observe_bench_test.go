// This file holds the benchmark of the hooks' cost on the acknowledged
// publish path: no hooks (the path every client without WithHooks takes),
// a counting hook, and a counting hook with trace propagation, side by
// side in one run (docs/observability.md gives the figures).

package client_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/flockgo/ironflock/client"
)

// countingHook counts publications with atomics, as a metrics exporter
// would.
type countingHook struct{ n, bytes, nanos atomic.Int64 }

func (h *countingHook) OnPublish(_ context.Context, _ client.Op, out client.Outcome) {
	h.n.Add(1)
	h.bytes.Add(int64(out.Bytes))
	h.nanos.Add(int64(out.Latency))
}

// BenchmarkPublishHooks measures an acknowledged publish of one row with
// no hooks, with a counting hook, and with a counting hook and trace
// propagation of an untraced ctx.
func BenchmarkPublishHooks(b *testing.B) {
	_, inst, _ := benchFleet(b)
	ctx := context.Background()
	run := func(b *testing.B, c *client.Client) {
		b.ReportAllocs()
		for b.Loop() {
			if err := c.Publish(ctx, "com.example.bench", benchRow); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("none", func(b *testing.B) { run(b, benchClient(b, inst)) })
	b.Run("counting", func(b *testing.B) {
		h := &countingHook{}
		run(b, benchClient(b, inst, client.WithHooks(h)))
		if h.n.Load() == 0 {
			b.Fatal("the hook counted nothing")
		}
	})
	b.Run("counting+trace", func(b *testing.B) {
		run(b, benchClient(b, inst, client.WithHooks(&countingHook{}), client.WithTracePropagation(testPropagator{})))
	})
}
