package files_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/files"
	"github.com/flockgo/ironflock/platformtest"
)

// BenchmarkDirect256MiB puts and gets a 256 MiB object directly through
// the SDK and, as the baseline in the same run, with a raw HTTP PUT and
// GET of the same bytes to the same object store (an upload URL and a
// share URL). It reports each throughput, the SDK's ratio to the raw
// copy, and the process's memory growth: of the Go runtime (Sys) and of
// the peak resident set (VmHWM, on Linux). The platform keeps large
// objects on disk, so the growth is the transfers'.
//
//	go test -run '^$' -bench Direct256MiB -benchtime 3x ./files
func BenchmarkDirect256MiB(b *testing.B) {
	const size = 256 << 20
	p := platformtest.New(b)
	inst := p.Install(p.AddDevice("bench"), p.AddApp("bench", benchTemplate), platformtest.Dev)
	p.SetFilesQuota(inst.Realm(), 0)
	st := files.New(clienttest.Start(b, inst))
	ctx := context.Background()
	if _, err := st.Catalog(ctx); err != nil {
		b.Fatal(err)
	}
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	defer hc.CloseIdleConnections()

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	hwm0 := peakRSS()

	var sdkPut, sdkGet, rawPut, rawGet time.Duration
	timed := func(d *time.Duration, f func() error) {
		start := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		*d += time.Since(start)
	}
	sdk := func() {
		timed(&sdkPut, func() error {
			_, err := st.PutReader(ctx, "sdk.bin", &patternReader{n: size}, size)
			return err
		})
		timed(&sdkGet, func() error {
			_, err := st.GetTo(ctx, "sdk.bin", io.Discard)
			return err
		})
	}
	raw := func() {
		up, err := st.UploadURL(ctx, "raw.bin", files.Size(size))
		if err != nil {
			b.Fatal(err)
		}
		timed(&rawPut, func() error { return rawTransfer(hc, up.Method, up.URL, up.Headers, &patternReader{n: size}, size) })
		sh, err := st.ShareURL(ctx, "raw.bin")
		if err != nil {
			b.Fatal(err)
		}
		timed(&rawGet, func() error { return rawTransfer(hc, http.MethodGet, sh.URL, nil, nil, 0) })
	}
	b.ResetTimer()
	for i := range b.N { // alternate who goes first, so neither always meets a warm disk
		if i%2 == 0 {
			sdk()
			raw()
		} else {
			raw()
			sdk()
		}
	}
	b.StopTimer()

	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	mbps := func(d time.Duration) float64 { return float64(size) * float64(b.N) / d.Seconds() / (1 << 20) }
	b.ReportMetric(mbps(sdkPut), "sdk-put-MiB/s")
	b.ReportMetric(mbps(rawPut), "raw-put-MiB/s")
	b.ReportMetric(rawPut.Seconds()/sdkPut.Seconds(), "put-ratio")
	b.ReportMetric(mbps(sdkGet), "sdk-get-MiB/s")
	b.ReportMetric(mbps(rawGet), "raw-get-MiB/s")
	b.ReportMetric(rawGet.Seconds()/sdkGet.Seconds(), "get-ratio")
	b.ReportMetric(float64(after.Sys-before.Sys)/(1<<20), "sys-growth-MiB")
	if hwm0 > 0 {
		b.ReportMetric(float64(peakRSS()-hwm0)/(1<<20), "rss-peak-growth-MiB")
	}
}

// benchTemplate lets the default namespace hold 5 GiB objects.
const benchTemplate = `
data:
  tables: []
files:
  namespaces:
    - {name: default, maxObjectBytes: 5368709120}
`

// rawTransfer sends one plain HTTP request of size bytes of body (GET:
// none) and reads the answer to the end.
func rawTransfer(hc *http.Client, method, u string, headers map[string]string, body io.Reader, size int64) error {
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		return err
	}
	req.ContentLength = size
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return &httpStatusError{resp.Status}
	}
	return nil
}

type httpStatusError struct{ status string }

func (e *httpStatusError) Error() string { return "HTTP " + e.status }

// peakRSS returns the process's peak resident set in bytes (VmHWM), 0
// where /proc is unavailable.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
