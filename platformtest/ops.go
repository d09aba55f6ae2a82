// This file holds the platform's ops endpoints, which flockd serves on
// its ops listener (-ops): liveness, readiness, statistics as JSON and
// metrics in the Prometheus text format, from the registry of
// internal/metrics that the router, the data backends' PostgreSQL store
// and the file service count in, and that the console's traffic page
// shows.

package platformtest

import (
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/metrics"
)

// Ops endpoints, the production router's names.
const (
	OpsHealthPath  = "/healthz"
	OpsReadyPath   = "/readyz"
	OpsStatsPath   = "/stats"
	OpsMetricsPath = "/metrics"
)

// Ready returns nil when the platform serves every provisioned realm:
// the router is up and each realm is in it with its platform session and
// every service (the data backend, the file service…) attached. Else
// the error says what is missing. A withheld realm (WithholdRealm) is
// not ready.
func (p *Platform) Ready() error { return p.rt.Ready() }

// WriteMetrics writes the platform's metrics in the Prometheus text
// exposition format (version 0.0.4). Labels name stages, roles, message
// types and URIs with their keys replaced by {n}, never a device, so
// the number of series does not grow with the fleet.
func (p *Platform) WriteMetrics(w io.Writer) error { return p.set.metrics.WriteText(w) }

// OpsStats is what /stats answers.
type OpsStats struct {
	Ready bool `json:"ready"`
	// NotReady says why the platform is not ready; empty when it is.
	NotReady string    `json:"not_ready,omitempty"`
	Time     time.Time `json:"time"`
	// Sessions is the number of joined device sessions.
	Sessions int `json:"sessions"`
	// Metrics are the metrics /metrics serves, by name.
	Metrics []MetricFamily `json:"metrics"`
}

// MetricFamily is one metric of /metrics and /stats: its name, help, type
// and series with their labels and values.
type MetricFamily = metrics.Family

// Stats returns the platform's readiness and metrics, as /stats answers.
func (p *Platform) Stats() OpsStats {
	st := OpsStats{Ready: true, Time: time.Now().UTC(), Metrics: p.set.metrics.Snapshot()}
	if err := p.Ready(); err != nil {
		st.Ready, st.NotReady = false, err.Error()
	}
	for _, f := range st.Metrics {
		if f.Name == "flockd_sessions" {
			for _, s := range f.Samples {
				st.Sessions += int(s.Value)
			}
		}
	}
	return st
}

// OpsHandler returns the handler of the ops endpoints: GET /healthz
// (200 while the platform serves), /readyz (200 when Ready, else 503
// with the reason), /stats (JSON, OpsStats) and /metrics (the Prometheus
// text format). flockd serves it on its ops listener; it checks no
// token, so serve it on loopback or a private network.
func (p *Platform) OpsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+OpsHealthPath, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET "+OpsReadyPath, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if err := p.Ready(); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, err.Error()+"\n")
			return
		}
		_, _ = io.WriteString(w, "ready\n")
	})
	mux.HandleFunc("GET "+OpsStatsPath, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(p.Stats())
	})
	mux.HandleFunc("GET "+OpsMetricsPath, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", metrics.ContentType)
		w.Header().Set("Cache-Control", "no-store")
		_ = p.WriteMetrics(w)
	})
	return mux
}
