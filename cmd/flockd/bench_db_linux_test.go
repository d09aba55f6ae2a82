package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkAppendDB measures acknowledged appends with 16 in flight (one
// client, 16 goroutines) against two flockd children with a data folder,
// one of them keeping its rows in PostgreSQL (-db, a database of its own
// on the server of $IRONFLOCK_TEST_POSTGRES), in alternating rounds of
// 2 s (5 rounds). It reports, per append and as medians of the rounds,
// the rate, the CPU each flockd spent and the CPU every PostgreSQL
// process of the machine spent: the gap between the two is what keeping
// rows in PostgreSQL costs. Run it alone: go test -run - -bench AppendDB
// -benchtime 1x ./cmd/flockd.
func BenchmarkAppendDB(b *testing.B) {
	const rounds, round = 5, 2 * time.Second
	base := postgresURL(b)
	if base == "" {
		return
	}
	for range b.N {
		servers := startBenchChildren(b, []namedArgs{
			{"datadir", []string{"-data", filepath.Join(b.TempDir(), "data")}},
			{"db", []string{"-data", filepath.Join(b.TempDir(), "data"), "-db", freshDatabase(b, base)}},
		})
		rates, cpus, pgs := make([][]float64, len(servers)), make([][]float64, len(servers)), make([][]float64, len(servers))
		for r := range rounds {
			line := fmt.Sprintf("round %d:", r+1)
			for i, s := range servers {
				pgBefore := postgresCPU(b)
				rate, cpu, n := s.round(b, r, round)
				pg := float64((postgresCPU(b) - pgBefore).Microseconds()) / float64(n)
				rates[i], cpus[i], pgs[i] = append(rates[i], rate), append(cpus[i], cpu), append(pgs[i], pg)
				line += fmt.Sprintf(" %s %.0f appends/s, flockd %.0f µs CPU each, PostgreSQL %.0f µs;", s.name, rate, cpu, pg)
			}
			b.Log(line)
		}
		for i, s := range servers {
			b.ReportMetric(median(rates[i]), s.name+"-appends/s")
			b.ReportMetric(median(cpus[i]), s.name+"-cpu-µs/append")
			b.ReportMetric(median(pgs[i]), s.name+"-postgres-cpu-µs/append")
		}
	}
}

// postgresCPU returns the CPU time every process named postgres on the
// machine has spent (the server and its backends); a process that ends
// while it is read (a backend, an autovacuum worker) is left out.
func postgresCPU(tb testing.TB) time.Duration {
	tb.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		tb.Fatal(err)
	}
	var sum time.Duration
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != "postgres" {
			continue
		}
		if d, err := procCPU(pid); err == nil {
			sum += d
		}
	}
	return sum
}
