//go:build !race

package sessionmem

import (
	"flag"
	"strconv"
	"strings"
	"testing"
)

var (
	sessionsFlag = flag.String("sessions", "1000", "comma-separated numbers of `sessions` the benchmarks measure")
	noRecordFlag = flag.Bool("norecord", false, "measure flockd without its recording of traffic")
	profileFlag  = flag.String("childprofile", "", "`folder` where the measured child writes its heap profile and goroutine stacks")
)

// benchSessions returns the numbers of sessions -sessions names.
func benchSessions(b *testing.B) []int {
	var ns []int
	for _, f := range strings.Split(*sessionsFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			b.Fatalf("-sessions %q: %q is not a positive number", *sessionsFlag, f)
		}
		ns = append(ns, n)
	}
	return ns
}

// report reports p's figures per session.
func report(b *testing.B, p PerSession) {
	b.ReportMetric(p.RSS(), "rss-B/session")
	b.ReportMetric(p.InUse(), "inuse-B/session")
	b.ReportMetric(p.Heap(), "heap-B/session")
	b.ReportMetric(p.Stack(), "stack-B/session")
	b.ReportMetric(p.Goroutines(), "goroutines/session")
	b.ReportMetric(float64(p.Before.RSS), "baseline-rss-B")
	b.Log(p)
}

// BenchmarkFlockdSessionMemory measures what an idle device session costs
// the platform: go test -run '^$' -bench FlockdSessionMemory -benchtime 1x -sessions 2000,5000
func BenchmarkFlockdSessionMemory(b *testing.B) {
	for _, n := range benchSessions(b) {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for range b.N {
				report(b, flockdPerSession(b, n, *noRecordFlag))
			}
		})
	}
}

// BenchmarkClientSessionMemory measures what a connected device costs a
// process of SDK clients.
func BenchmarkClientSessionMemory(b *testing.B) {
	for _, n := range benchSessions(b) {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for range b.N {
				report(b, clientPerSession(b, n))
			}
		})
	}
}
