// This file holds the output: the table with ratios to the floor client,
// and the JSON form.

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// result is one client's figures in one scenario.
type result struct {
	Scenario string   `json:"scenario"`
	Client   string   `json:"client"`
	Samples  []sample `json:"-"`
	Median   sample   `json:"-"`
	Count    int      `json:"count"`
	// CPU per operation of each round, in µs.
	Rounds []float64 `json:"cpu_us_per_op_rounds"`

	// Figures of the median interval.
	Ops         int64   `json:"ops"`
	OpsPerSec   float64 `json:"ops_per_sec"`
	CPUMicros   float64 `json:"cpu_us_per_op"`
	AllocsPerOp float64 `json:"allocs_per_op"`
	BytesPerOp  float64 `json:"bytes_per_op"`
	// Ratios of CPU per operation to the floor clients' and to
	// autobahn-js's (0: not measured).
	VsFloor   float64 `json:"cpu_vs_floor,omitempty"`
	VsFloor1g float64 `json:"cpu_vs_floor_1g,omitempty"`
	VsJS      float64 `json:"cpu_vs_autobahn_js,omitempty"`
	// VsSDK is the ratio to the client sdk's, for the clients sdk-any and
	// sdk-hooks: what the counting hook costs (0: not measured).
	VsSDK float64 `json:"cpu_vs_sdk,omitempty"`
	// Note is set for figures measured by another program (autobahn).
	Note string `json:"note,omitempty"`
}

// newResult summarizes samples.
func newResult(sc, client string, samples []sample) result {
	m := median(samples)
	rounds := make([]float64, len(samples))
	for i, s := range samples {
		rounds[i] = s.CPUPerOp()
	}
	return result{Scenario: sc, Client: client, Samples: samples, Median: m, Count: len(samples), Rounds: rounds,
		Ops: m.Ops, OpsPerSec: m.OpsPerSec(), CPUMicros: m.CPUPerOp(), AllocsPerOp: m.AllocsPerOp(), BytesPerOp: m.BytesPerOp()}
}

// addRatios fills VsFloor and VsFloor1g: the median over rounds of each
// round's CPU per operation divided by the floor client's in the same
// round and scenario (the ratio of the medians when the rounds differ in
// number); and VsJS, the same against autobahn-js (whose rounds run after
// the Go clients') for the Go clients.
func addRatios(rs []result) {
	base := map[string]result{}
	for _, r := range rs {
		if r.Client == "floor" || r.Client == "floor-1g" || r.Client == "sdk" || r.Client == jsScript.Client {
			base[r.Scenario+"/"+r.Client] = r
		}
	}
	for i := range rs {
		if f, ok := base[rs[i].Scenario+"/floor"]; ok {
			rs[i].VsFloor = cpuRatio(rs[i], f)
		}
		if f, ok := base[rs[i].Scenario+"/floor-1g"]; ok {
			rs[i].VsFloor1g = cpuRatio(rs[i], f)
		}
		if js, ok := base[rs[i].Scenario+"/"+jsScript.Client]; ok && rs[i].Note == "" {
			rs[i].VsJS = cpuRatio(rs[i], js)
		}
		if sdk, ok := base[rs[i].Scenario+"/sdk"]; ok && strings.HasPrefix(rs[i].Client, "sdk-") {
			rs[i].VsSDK = cpuRatio(rs[i], sdk)
		}
	}
}

// cpuRatio is r's CPU per operation relative to base's.
func cpuRatio(r, base result) float64 {
	if len(r.Samples) != len(base.Samples) {
		if base.CPUMicros == 0 {
			return 0
		}
		return r.CPUMicros / base.CPUMicros
	}
	ratios := make([]float64, len(r.Samples))
	for i := range r.Samples {
		b := base.Samples[i].CPUPerOp()
		if b == 0 {
			return 0
		}
		ratios[i] = r.Samples[i].CPUPerOp() / b
	}
	return medianFloat(ratios)
}

// printTable writes the results as an aligned table; the column of the
// ratios to autobahn-js only when it ran.
func printTable(w io.Writer, rs []result) error {
	js := slices.ContainsFunc(rs, func(r result) bool { return r.VsJS != 0 })
	vsSDK := slices.ContainsFunc(rs, func(r result) bool { return r.VsSDK != 0 })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "scenario      client         \tops/s\tCPU µs/op\tallocs/op\tB/op\tCPU ×floor\tCPU ×floor-1g\t"
	if js {
		head += "CPU ×autobahn-js\t"
	}
	if vsSDK {
		head += "CPU ×sdk\t"
	}
	fmt.Fprintln(tw, head)
	for _, r := range rs {
		allocs, bytes := fmt.Sprintf("%.1f", r.AllocsPerOp), fmt.Sprintf("%.0f", r.BytesPerOp)
		if r.Note != "" {
			allocs, bytes = "-", "-"
		}
		fmt.Fprintf(tw, "%-12s  %-15s\t%.0f\t%.1f\t%s\t%s\t%s\t%s\t", r.Scenario, r.Client, r.OpsPerSec, r.CPUMicros,
			allocs, bytes, ratio(r.VsFloor), ratio(r.VsFloor1g))
		if js {
			fmt.Fprintf(tw, "%s\t", ratio(r.VsJS))
		}
		if vsSDK {
			fmt.Fprintf(tw, "%s\t", ratio3(r.VsSDK))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	noted := map[string]bool{}
	for _, r := range rs {
		if r.Note != "" && !noted[r.Client] {
			noted[r.Client] = true
			fmt.Fprintf(w, "%s: %s\n", r.Client, r.Note)
		}
	}
	return nil
}

func ratio(x float64) string {
	if x == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f×", x)
}

// ratio3 is ratio to 0.1 %, for the small differences of VsSDK.
func ratio3(x float64) string {
	if x == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f×", x)
}

// printJSON writes the results as one JSON document.
func printJSON(w io.Writer, info runInfo, rs []result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		runInfo
		Results []result `json:"results"`
	}{info, rs})
}
