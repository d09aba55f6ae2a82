//go:build unix

package registry

import (
	"fmt"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
)

// fleet returns a registry holding n devices in one project, each with
// one app installed in DEV, ten of them in a group.
func fleet(tb testing.TB, n int) (*Registry, []*Device) {
	tb.Helper()
	r := New(testConfig())
	var devs []*Device
	err := r.Update(func(s *State) error {
		pr, err := s.AddProject("fleet", Spec{})
		if err != nil {
			return err
		}
		a, err := s.AddApp("meter", sensorsTemplate, "", Spec{})
		if err != nil {
			return err
		}
		for i := range n {
			d, err := s.AddDevice(fmt.Sprintf("meter-%06d", i), Spec{Project: pr})
			if err != nil {
				return err
			}
			if _, err := s.Install(d, a, wire.StageDev); err != nil {
				return err
			}
			devs = append(devs, d)
		}
		_, err = s.AddGroup(pr, "some", Spec{}, devs[:10])
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return r, devs
}

// deleteCost deletes k devices of a fleet of n (every n/k-th), each in
// its own change kept before the next, and returns the process's CPU
// time per deletion.
func deleteCost(tb testing.TB, n, k int) time.Duration {
	tb.Helper()
	r, devs := fleet(tb, n)
	runtime.GC() // the setup's garbage is not the deletions' cost
	cpu0 := processCPU()
	for i := range k {
		d := devs[i*(n/k)]
		r.Do(func(s *State) { s.DeleteDevice(d) })
	}
	cpu := processCPU() - cpu0
	r.View(func(s *State) {
		if got := len(s.Devices()); got != n-k {
			tb.Fatalf("%d devices after %d deletions of %d", got, k, n)
		}
	})
	return cpu / time.Duration(k)
}

// processCPU returns the CPU time (user and system) of the process.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkDeleteDevice deletes 500 devices, each with its installation,
// from fleets of 1,000 and of 10,000, in five interleaved rounds, and
// reports the median CPU per deletion of each (cpu_ns/delete_1k,
// cpu_ns/delete_10k) and their ratio (ratio_10k_1k): a deletion costs
// what its device's installations and groups do, not what the fleet does,
// so the ratio stays near 1 (a deletion scanning the fleet makes it 10).
// It fails when the ratio passes 2, so a benchmark run catches a
// deletion that grows with the fleet; a unit test times nothing.
func BenchmarkDeleteDevice(b *testing.B) {
	const rounds, k = 5, 500
	for b.Loop() {
		var small, large []time.Duration
		for range rounds {
			small = append(small, deleteCost(b, 1000, k))
			large = append(large, deleteCost(b, 10_000, k))
		}
		s, l := median(small), median(large)
		ratio := float64(l) / float64(s)
		b.ReportMetric(float64(s.Nanoseconds()), "cpu_ns/delete_1k")
		b.ReportMetric(float64(l.Nanoseconds()), "cpu_ns/delete_10k")
		b.ReportMetric(ratio, "ratio_10k_1k")
		if ratio > 2 {
			b.Errorf("a deletion costs %.2f times as much with 10,000 devices as with 1,000 (%v against %v): it grows with the fleet", ratio, l, s)
		}
	}
}

// median returns the median of ds.
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
