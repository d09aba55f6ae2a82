//go:build unix

package platformtest

import (
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
)

// fleetSeed is a configuration of n devices in one project, each running
// one app in DEV.
func fleetSeed(n int) *Seed {
	s := &Seed{
		Projects: []SeedProject{{Name: "fleet", SwarmKey: 2}},
		Apps:     []SeedApp{{Name: "meter", AppKey: 26, DataTemplate: opsTemplate}},
	}
	for i := range n {
		name := fmt.Sprintf("meter-%06d", i)
		s.Projects[0].Devices = append(s.Projects[0].Devices, SeedDevice{Name: name})
		s.Installations = append(s.Installations, SeedInstallation{Project: "fleet", Device: name, App: "meter", Stage: "DEV"})
	}
	return s
}

// reconcileFleet provisions n devices and installations from a seed with
// the data folder dir (a new one: provisioning; a kept one: a restart's
// reconciliation) and returns how long the platform's start and its
// Reconcile took, and the CPU time the process spent meanwhile (on a
// loaded machine the figure that tells).
func reconcileFleet(tb testing.TB, dir string, n int, opts ...Option) (took, cpu time.Duration) {
	tb.Helper()
	seed := fleetSeed(n)
	runtime.GC() // the garbage of what ran before is not this run's
	cpu0 := processCPU()
	start := time.Now()
	p, err := Start(append([]Option{WithDataDir(dir), WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))}, opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	defer p.Close()
	res, err := p.Reconcile(seed)
	if err != nil {
		tb.Fatal(err)
	}
	took, cpu = time.Since(start), processCPU()-cpu0
	if len(res.Installations) != n {
		tb.Fatalf("%d installations, want %d", len(res.Installations), n)
	}
	return took, cpu
}

// processCPU returns the CPU time (user and system) of the process.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkReconcile provisions 10,000 and 100,000 devices and
// installations from a configuration with a data folder (provision_s,
// provision_cpu_s: the process's CPU), then starts the platform again on
// the folder and reconciles the same configuration (restart_s,
// restart_cpu_s): issue 37 bounds each by 3 s at 100,000. With
// IRONFLOCK_TEST_POSTGRES set, the pg variants do the same with the rows
// in PostgreSQL (flockd -data -db: the registry stays in the folder; the
// realm's schema is made once, whatever the fleet).
func BenchmarkReconcile(b *testing.B) {
	type variant struct {
		name string
		opts []Option
	}
	variants := []variant{{"folder", nil}}
	if url := storetest.PostgresURL(b); url != "" {
		variants = append(variants, variant{"folder+pg", []Option{WithPostgres(url, PostgresScratch())}})
	}
	for _, v := range variants {
		for _, n := range []int{10_000, 100_000} {
			b.Run(v.name+"/"+fmtDevices(n), func(b *testing.B) {
				for b.Loop() {
					dir := filepath.Join(b.TempDir(), "data")
					prov, provCPU := reconcileFleet(b, dir, n, v.opts...)
					restart, restartCPU := reconcileFleet(b, dir, n, v.opts...)
					b.ReportMetric(prov.Seconds(), "provision_s")
					b.ReportMetric(provCPU.Seconds(), "provision_cpu_s")
					b.ReportMetric(restart.Seconds(), "restart_s")
					b.ReportMetric(restartCPU.Seconds(), "restart_cpu_s")
				}
			})
		}
	}
}
