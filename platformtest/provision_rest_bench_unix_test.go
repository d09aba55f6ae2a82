//go:build unix

package platformtest

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// BenchmarkProvisionREST provisions n devices and installations over the
// management API with a data folder, as a user's script would: the
// devices in bulk creations of rest.MaxBulk (1,000) each, then the app
// installed on each device, one request per installation (the API has no
// bulk installation), 8 or 64 requests at a time over as many kept
// connections (inflight=N): the data folder answers an installation once
// it is synced, and commits what comes meanwhile together, so a script
// with more requests in flight pays fewer syncs. It reports the wall time (provision_s), the process's CPU
// (provision_cpu_s: the platform's and the client's, HTTP on both sides)
// and each per device (us/device, cpu_us/device). The baseline, bare, is
// the ceiling of any platform with one request per installation: the same
// client and requests against an HTTP server that only decodes each body
// and answers it.
func BenchmarkProvisionREST(b *testing.B) {
	for _, n := range []int{1000, 10_000, 100_000} {
		for _, workers := range []int{8, 64} {
			for _, v := range []struct {
				name string
				run  func(testing.TB, string, int, int) (time.Duration, time.Duration)
			}{{"bare", installBare}, {"platform", provisionREST}} {
				b.Run(fmt.Sprintf("%s/%s/inflight=%d", v.name, fmtDevices(n), workers), func(b *testing.B) {
					for b.Loop() {
						took, cpu := v.run(b, filepath.Join(b.TempDir(), "data"), n, workers)
						b.ReportMetric(took.Seconds(), "provision_s")
						b.ReportMetric(cpu.Seconds(), "provision_cpu_s")
						b.ReportMetric(float64(took.Microseconds())/float64(n), "us/device")
						b.ReportMetric(float64(cpu.Microseconds())/float64(n), "cpu_us/device")
					}
				})
			}
		}
	}
}

// restClient returns a client that keeps a connection per worker (the
// default keeps two per host and would open one for most requests).
func restClient(tb testing.TB, workers int) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = workers
	tb.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// installBare is provisionREST's installations against a server that only
// decodes each request's body and answers 201 with a device app of the
// same shape: the cost of HTTP alone, client and server.
func installBare(tb testing.TB, _ string, n, workers int) (took, cpu time.Duration) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			AppKey int    `json:"app_key"`
			Stage  string `json:"stage"`
		}
		if r.Header.Get("Authorization") == "" || json.NewDecoder(r.Body).Decode(&in) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]any{"device_key": 1, "app_key": in.AppKey, "app_name": "meter",
			"release_key": 1, "stage": in.Stage, "current_state": "PRESENT", "target_state": "RUNNING", "inherit_from_group": false})
	}))
	defer srv.Close()
	c, p := restClient(tb, workers), bareServer(srv.URL)
	keys := make([]int, n)
	for i := range keys {
		keys[i] = i + 1
	}
	runtime.GC()
	cpu0, start := processCPU(), time.Now()
	eachAtOnce(tb, "installations", keys, workers, func(k int) error {
		a := worldtest.RESTSendVia(c, p, http.MethodPost, fmt.Sprintf("/devices/%d/apps", k), "tok-ops", `{"app_key":26,"stage":"DEV"}`)
		if a.Status != http.StatusCreated {
			return fmt.Errorf("device %d: %d %s", k, a.Status, a.Body)
		}
		return nil
	})
	return time.Since(start), processCPU() - cpu0
}

// bareServer is the address of installBare's server.
type bareServer string

// HTTPURL returns the server's address.
func (s bareServer) HTTPURL() string { return string(s) }

func provisionREST(tb testing.TB, dir string, n, workers int) (took, cpu time.Duration) {
	tb.Helper()
	p, err := Start(WithDataDir(dir), WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		tb.Fatal(err)
	}
	defer p.Close()
	const token = "tok-ops"
	pr := p.AddProject("fleet")
	app := p.AddApp("meter", opsTemplate)
	p.AddUser("ops", token, map[*Project]string{pr: RoleAdmin})
	c := restClient(tb, workers)
	runtime.GC()
	cpu0, start := processCPU(), time.Now()
	var keys []int
	for i := 0; i < n; i += 1000 {
		var names []string
		for j := i; j < min(n, i+1000); j++ {
			names = append(names, fmt.Sprintf(`{"name":"meter-%06d"}`, j))
		}
		a := worldtest.RESTSendVia(c, p, http.MethodPost, fmt.Sprintf("/swarms/%d/devices", pr.Key()), token, "["+strings.Join(names, ",")+"]")
		if a.Status != http.StatusCreated {
			tb.Fatalf("create devices: %d %s", a.Status, a.Body)
		}
		var made []struct {
			Key int `json:"device_key"`
		}
		if err := json.Unmarshal(a.Body, &made); err != nil {
			tb.Fatal(err)
		}
		for _, d := range made {
			keys = append(keys, d.Key)
		}
	}
	eachAtOnce(tb, "installations", keys, workers, func(k int) error {
		a := worldtest.RESTSendVia(c, p, http.MethodPost, fmt.Sprintf("/devices/%d/apps", k), token, fmt.Sprintf(`{"app_key":%d,"stage":"DEV"}`, app.Key()))
		if a.Status/100 != 2 {
			return fmt.Errorf("device %d: %d %s", k, a.Status, a.Body)
		}
		return nil
	})
	took, cpu = time.Since(start), processCPU()-cpu0
	var got int
	p.reg.View(func(s *registry.State) { got = s.Installations() })
	if got != n {
		tb.Fatalf("%d installations, want %d", got, n)
	}
	return took, cpu
}
