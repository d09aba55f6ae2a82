package gcpace

import (
	"context"
	"runtime/metrics"
	"time"
)

// The runtime's metrics the pacer reads.
const (
	allocsMetric = "/gc/heap/allocs:bytes" // bytes allocated since the start
	liveMetric   = "/gc/heap/live:bytes"   // heap the last collection found live
)

// Run paces the collector until ctx ends: every p.Every it samples the
// runtime and calls set with a new GOGC when the setting should change
// (set is where the caller applies it, with debug.SetGCPercent, and logs
// it). It returns an error only for a policy it cannot follow, at once.
func Run(ctx context.Context, p Policy, set func(percent int)) error {
	if err := p.validate(); err != nil {
		return err
	}
	pc := pacer{policy: p, percent: DefaultPercent}
	samples := []metrics.Sample{{Name: allocsMetric}, {Name: liveMetric}}
	start := time.Now()
	tick := time.NewTicker(p.Every)
	defer tick.Stop()
	for {
		metrics.Read(samples)
		if percent, changed := pc.observe(time.Since(start), value(samples[0]), value(samples[1])); changed {
			set(percent)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// value is a sample's value, 0 when this runtime does not know the metric.
func value(s metrics.Sample) uint64 {
	if s.Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s.Value.Uint64()
}
