//go:build unix

package platformtest

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// BenchmarkProvisionREST provisions n devices and installations over the
// management API with a data folder, as a user's script would: the
// devices in bulk creations of rest.MaxBulk (1,000) each, then the app
// installed on each device, one request per installation (the API has no
// bulk installation), eight requests at a time. It reports the wall time
// (provision_s), the process's CPU (provision_cpu_s: the platform's and
// the client's, HTTP on both sides) and each per device (us/device,
// cpu_us/device).
func BenchmarkProvisionREST(b *testing.B) {
	for _, n := range []int{1000, 10_000} {
		b.Run(fmtDevices(n), func(b *testing.B) {
			for b.Loop() {
				took, cpu := provisionREST(b, filepath.Join(b.TempDir(), "data"), n)
				b.ReportMetric(took.Seconds(), "provision_s")
				b.ReportMetric(cpu.Seconds(), "provision_cpu_s")
				b.ReportMetric(float64(took.Microseconds())/float64(n), "us/device")
				b.ReportMetric(float64(cpu.Microseconds())/float64(n), "cpu_us/device")
			}
		})
	}
}

func provisionREST(tb testing.TB, dir string, n int) (took, cpu time.Duration) {
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
	runtime.GC()
	cpu0, start := processCPU(), time.Now()
	var keys []int
	for i := 0; i < n; i += 1000 {
		var names []string
		for j := i; j < min(n, i+1000); j++ {
			names = append(names, fmt.Sprintf(`{"name":"meter-%06d"}`, j))
		}
		a := worldtest.RESTSend(p, http.MethodPost, fmt.Sprintf("/swarms/%d/devices", pr.Key()), token, "["+strings.Join(names, ",")+"]")
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
	work := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed []string
	for range 8 {
		wg.Go(func() {
			for k := range work {
				a := worldtest.RESTSend(p, http.MethodPost, fmt.Sprintf("/devices/%d/apps", k), token, fmt.Sprintf(`{"app_key":%d,"stage":"DEV"}`, app.Key()))
				if a.Status/100 != 2 {
					mu.Lock()
					failed = append(failed, fmt.Sprintf("device %d: %d %s", k, a.Status, a.Body))
					mu.Unlock()
				}
			}
		})
	}
	for _, k := range keys {
		work <- k
	}
	close(work)
	wg.Wait()
	took, cpu = time.Since(start), processCPU()-cpu0
	if len(failed) > 0 {
		tb.Fatalf("%d installations failed, the first: %s", len(failed), failed[0])
	}
	var got int
	p.reg.View(func(s *registry.State) { got = s.Installations() })
	if got != n {
		tb.Fatalf("%d installations, want %d", got, n)
	}
	return took, cpu
}
