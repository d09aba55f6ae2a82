// This file holds the tests of the pure pieces: choosing scenarios and
// clients, ratios to the floor, and where the scripts' results go.

package main

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPick(t *testing.T) {
	name := func(s scenario) string { return s.Name }
	got, err := pick("scenario", "call16, pub1", scenarios, name)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "pub1" || got[1].Name != "call16" {
		t.Errorf("picked %v, want pub1 and call16 in run order", got)
	}
	if all, _ := pick("scenario", "all", scenarios, name); len(all) != len(scenarios) {
		t.Errorf("all picked %d", len(all))
	}
	if _, err := pick("scenario", "pub2", scenarios, name); err == nil {
		t.Error("unknown scenario accepted")
	}
}

func TestRatiosAndMerge(t *testing.T) {
	res := func(sc, client string, cpuMicros float64) result {
		return newResult(sc, client, []sample{{Ops: 1000, Wall: time.Second, CPU: time.Duration(cpuMicros*1000) * time.Microsecond}})
	}
	rs := []result{res("pub1", "sdk", 80), res("pub1", "floor", 40), res("pub16", "sdk", 30), res("pub16", "floor", 20), res("pub16", "floor-1g", 15)}
	rs = mergeResults(rs, []result{res("pub16", "autobahn-js", 60), res("pub1", "autobahn-js", 70)})
	addRatios(rs)
	type row struct {
		Sc, Client   string
		VsF, VsF1g   float64
		CPUMicrosOp  float64
		OpsPerSecond float64
	}
	var got []row
	for _, r := range rs {
		got = append(got, row{r.Scenario, r.Client, r.VsFloor, r.VsFloor1g, r.CPUMicros, r.OpsPerSec})
	}
	want := []row{
		{"pub1", "sdk", 2, 0, 80, 1000},
		{"pub1", "floor", 1, 0, 40, 1000},
		{"pub1", "autobahn-js", 1.75, 0, 70, 1000},
		{"pub16", "sdk", 1.5, 2, 30, 1000},
		{"pub16", "floor", 1, 20.0 / 15, 20, 1000},
		{"pub16", "floor-1g", 0.75, 1, 15, 1000},
		{"pub16", "autobahn-js", 3, 4, 60, 1000},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

func TestRatiosPerRound(t *testing.T) {
	s := func(cpuMicros int) sample {
		return sample{Ops: 1, Wall: time.Second, CPU: time.Duration(cpuMicros) * time.Microsecond}
	}
	// The load doubled in round 2 and tripled in round 3: per-round
	// ratios are 2, 2.5 and 2; the ratio of the medians would be 120/60.
	rs := []result{
		newResult("pub1", "sdk", []sample{s(80), s(100), s(240)}),
		newResult("pub1", "floor", []sample{s(40), s(40), s(120)}),
	}
	addRatios(rs)
	if rs[0].VsFloor != 2 || rs[1].VsFloor != 1 {
		t.Errorf("ratios %v and %v, want 2 and 1", rs[0].VsFloor, rs[1].VsFloor)
	}
	if got := medianFloat([]float64{3, 1, 2, 10}); got != 2.5 {
		t.Errorf("median of an even count %v, want 2.5", got)
	}
}

func TestMedian(t *testing.T) {
	s := func(cpu time.Duration) sample { return sample{Ops: 10, CPU: cpu} }
	if got := median([]sample{s(300), s(100), s(200)}); got.CPU != 200 {
		t.Errorf("median CPU %v, want 200ns", got.CPU)
	}
}

func TestRatiosToSDK(t *testing.T) {
	s := func(cpuMicros int) sample {
		return sample{Ops: 1, Wall: time.Second, CPU: time.Duration(cpuMicros) * time.Microsecond}
	}
	rs := []result{
		newResult("pub1", "sdk", []sample{s(100), s(200)}),
		newResult("pub1", "sdk-hooks", []sample{s(102), s(206)}),
		newResult("pub1", "floor", []sample{s(50), s(100)}),
	}
	addRatios(rs)
	if rs[0].VsSDK != 0 || rs[1].VsSDK != 1.025 || rs[2].VsSDK != 0 {
		t.Errorf("ratios to sdk %v, %v, %v, want 0, 1.025 (the median of 1.02 and 1.03), 0", rs[0].VsSDK, rs[1].VsSDK, rs[2].VsSDK)
	}
	var b strings.Builder
	if err := printTable(&b, rs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "CPU ×sdk") || !strings.Contains(b.String(), "1.025×") {
		t.Errorf("table without the ratio to sdk:\n%s", b.String())
	}
}
