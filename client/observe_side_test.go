//go:build !race && unix

// This file holds the side-by-side measure of what the hooks cost an
// acknowledged publish (issue 36: with no hooks at most 1 % CPU, with a
// counting hook at most 3 %): clients publishing as before the hooks,
// without hooks, with a counting hook and with a counting hook and trace
// propagation publish in turns, in
// short batches whose order rotates, in one process whose CPU is theirs
// alone (the router runs in allocs_test.go's child process), so that the
// load of a shared machine falls on all of them alike.

package client_test

import (
	"context"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
)

// processCPU returns the user and system time of this process.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPublishSideBySide publishes b.N batches of batch acknowledged
// publications on each client in turn and reports, per client, the CPU
// and allocations per publication, and the median over batches of each
// batch's CPU against the batch of its base next to it: the hooks' against
// the client without hooks, and that one's against PublishBare, the
// publish path as it was before the hooks (5ce8889):
//
//	go test -run '^$' -bench BenchmarkPublishSideBySide -benchtime 400x ./client/
func BenchmarkPublishSideBySide(b *testing.B) {
	const batch = 100
	r := startAllocRouter(b)
	// Each kind's batch is held to the batch of its base beside it: the
	// no-hook path to the path before the hooks (bare), the hooks to the
	// no-hook path.
	kinds := []struct {
		name string
		base int // index of the kind it is held to; -1: none
		bare bool
		opts func() []client.Option
	}{
		{"none", 3, false, func() []client.Option { return nil }},
		{"counting", 0, false, func() []client.Option { return []client.Option{client.WithHooks(&countingHook{})} }},
		{"counting+trace", 0, false, func() []client.Option {
			return []client.Option{client.WithHooks(&countingHook{}), client.WithTracePropagation(testPropagator{})}
		}},
		{"bare", -1, true, func() []client.Option { return nil }},
	}
	ctx := context.Background()
	row := allocRow()
	cs := make([]*client.Client, len(kinds))
	publish := func(i int) error {
		if kinds[i].bare {
			return client.PublishBare(ctx, cs[i], "com.example.side", row)
		}
		return cs[i].Publish(ctx, "com.example.side", row)
	}
	for i, k := range kinds {
		cs[i] = allocClient(b, r.Caller, client.MsgPack, k.opts()...)
		for range batch { // warm up: the connection, the template cache
			if err := publish(i); err != nil {
				b.Fatal(err)
			}
		}
	}
	cpu := make([]time.Duration, len(kinds))
	allocs := make([]uint64, len(kinds))
	ratios := make([][]float64, len(kinds))
	var ms runtime.MemStats
	b.ResetTimer()
	for round := range b.N {
		per := make([]time.Duration, len(kinds))
		for j := range kinds {
			i := (round + j) % len(kinds) // each client first in turn
			runtime.ReadMemStats(&ms)
			m0, c0 := ms.Mallocs, processCPU(b)
			for range batch {
				if err := publish(i); err != nil {
					b.Fatal(err)
				}
			}
			per[i] = processCPU(b) - c0
			runtime.ReadMemStats(&ms)
			allocs[i] += ms.Mallocs - m0
			cpu[i] += per[i]
		}
		for i, k := range kinds {
			if k.base >= 0 && per[k.base] > 0 {
				ratios[i] = append(ratios[i], float64(per[i])/float64(per[k.base]))
			}
		}
	}
	b.StopTimer()
	ops := float64(b.N * batch)
	for i, k := range kinds {
		b.ReportMetric(float64(cpu[i].Nanoseconds())/ops, k.name+"-cpu-ns/op")
		b.ReportMetric(float64(allocs[i])/ops, k.name+"-allocs/op")
		if k.base >= 0 && len(ratios[i]) > 0 {
			base := kinds[k.base].name
			slices.Sort(ratios[i])
			b.ReportMetric(ratios[i][len(ratios[i])/2], k.name+"/"+base+"-cpu")
			b.ReportMetric(float64(cpu[i])/float64(cpu[k.base]), k.name+"/"+base+"-cpu-total")
		}
	}
}
