// Package metrics is flockd's registry of counters, gauges and histograms
// and their writer in the Prometheus text exposition format (version
// 0.0.4), written here so that the main module depends on no Prometheus
// library.
//
// A metric is a set of atomics: updating one on a hot path costs an
// atomic add (a histogram two, and a compare-and-swap for its sum). A
// labelled metric (Vec) looks its series up under a read lock and holds
// at most a bounded number of series: label values beyond the bound are
// counted under the value Other, so the number of series cannot grow
// with what clients send. Labels must come from templates (a table, a
// procedure without device keys: Template), never from raw URIs.
//
// The ops endpoint /metrics (WriteText), the JSON of /stats and the web
// console's traffic page (Snapshot) read the same registry.
package metrics
