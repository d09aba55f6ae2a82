package router

import (
	"fmt"
	"io"
	"testing"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/metrics"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// BenchmarkScrape10kSessions times a scrape of the metrics (the text
// /metrics serves) of a router holding 10,000 joined sessions in two
// stages and two roles, with every series of a busy platform filled: the
// issue's bound is 50 ms a scrape.
func BenchmarkScrape10kSessions(b *testing.B) {
	reg := metrics.New()
	rt := New(Config{Metrics: reg})
	dev := &registry.Device{Key: 1, Serial: "s"}
	for i := range 10000 {
		stage, role := wire.StageDev, wire.RoleApp
		if i%2 == 0 {
			stage = wire.StageProd
		}
		if i%5 == 0 {
			role = wire.RoleAppReader
		}
		s := &session{id: uint64(i + 1), realm: realm.NewInfo(2, 26, stage), role: role, device: dev, active: true}
		rt.sessions[s.id] = s
		rt.countSessionLocked(s, 1)
	}
	for t := range wamp.MessageType(maxTypes) {
		rt.met.in[t].Add(uint64(t))
		rt.met.out[t].Add(uint64(t))
	}
	for i := range 50 {
		uri := fmt.Sprintf("append.{n}.{n}.table%d", i)
		rt.met.appends.With(uri).Add(10)
		rt.met.callLatency.With(uri).Observe(0.001)
		rt.met.refusals.With("CALL", uri, wire.ErrStorageFull).Inc()
	}
	b.ResetTimer()
	for b.Loop() {
		if err := reg.WriteText(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
