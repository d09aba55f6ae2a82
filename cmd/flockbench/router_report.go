// This file holds the output of the router benchmark: the table with the
// ratios to the bare nexus routers, and the JSON form.

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"text/tabwriter"
)

// routerInfo describes a router run, printed above the table.
type routerInfo struct {
	GoVersion string `json:"go_version"`
	Platform  string `json:"platform"`
	NumCPU    int    `json:"num_cpu"`
	Duration  string `json:"duration"`
	Warmup    string `json:"warmup"`
	Count     int    `json:"count"`
}

func newRouterInfo(o *options) routerInfo {
	return routerInfo{GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
		NumCPU: runtime.NumCPU(), Duration: o.duration.String(), Warmup: o.warmup.String(), Count: o.count}
}

// printRouterInfo writes the lines above the table.
func printRouterInfo(w io.Writer, o *options, scs []routerScenario) {
	info := newRouterInfo(o)
	fmt.Fprintf(w, "flockbench -router: %s %s, %d CPUs\n", info.GoVersion, info.Platform, info.NumCPU)
	fmt.Fprintln(w, "routers: flockd (default flags: recording on) and bare nexus (nexus/v3/router behind its WebSocket server;\n"+
		"anonymous, and WAMP-CRA as nexus-cra), each in a child process; peers: msgpack, pre-encoded, in this process")
	for _, sc := range scs {
		fmt.Fprintf(w, "  %-8s %s (per %s)\n", sc.Name, sc.Title, sc.Unit)
	}
	fmt.Fprintf(w, "each: %d round(s), fresh routers each round, of %s warm-up + %s measured per router and scenario\n"+
		"(median by CPU per operation; ratios: median of the per-round ratios); CPU = user+system time of the router\n"+
		"process (/proc, 10 ms ticks); RSS at the end of the interval (median), peak over the run\n\n",
		info.Count, info.Warmup, info.Duration)
}

// printRouterTable writes the results as an aligned table.
func printRouterTable(w io.Writer, rs []routerResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario  router    \tops/s\tCPU µs/op\tRSS MiB\tpeak MiB\tlost\tCPU ×nexus\tCPU ×nexus-cra\tRSS ×nexus\t")
	for _, r := range rs {
		fmt.Fprintf(tw, "%-8s  %-10s\t%.0f\t%.2f\t%.1f\t%.1f\t%d\t%s\t%s\t%s\t\n", r.Scenario, r.Router, r.OpsPerSec, r.CPUMicros,
			r.RSSMiB, r.PeakMiB, r.Lost, ratio(r.VsNexus), ratio(r.VsNexusCRA), ratio(r.RSSVsNexus))
	}
	return tw.Flush()
}

// printRouterJSON writes the results as one JSON document.
func printRouterJSON(w io.Writer, o *options, rs []routerResult) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		routerInfo
		Results []routerResult `json:"results"`
	}{newRouterInfo(o), rs})
}
