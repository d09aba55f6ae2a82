package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest"
)

// opsGet fetches an ops endpoint and returns its status and body.
func opsGet(t *testing.T, base, path string) (int, string) {
	t.Helper()
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Get(base + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestOpsEndpoints: with -ops the endpoints listen before the platform
// starts: /healthz answers 200 at once, /readyz 503 until the demo is
// provisioned with its backends attached, then 200; /metrics and /stats
// then answer from the platform.
func TestOpsEndpoints(t *testing.T) {
	reached, release := make(chan struct{}), make(chan struct{})
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), beforeStartKey{}, func() {
		close(reached)
		<-release
	}))
	defer cancel()
	logs := &syncBuffer{}
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-memory", "-listen", "127.0.0.1:0", "-ops", "127.0.0.1:0", "-no-console"}, io.Discard, logs,
			func(*platformtest.Platform) { close(ready) })
	}()
	select {
	case <-reached:
	case err := <-done:
		t.Fatalf("flockd ended early: %v\n%s", err, logs)
	}
	m := regexp.MustCompile(`healthz=(http://[0-9.:]+)/healthz`).FindStringSubmatch(logs.String())
	if m == nil {
		close(release)
		t.Fatalf("no ops address in the log:\n%s", logs)
	}
	base := m[1]
	if code, _ := opsGet(t, base, "/healthz"); code != http.StatusOK {
		t.Errorf("/healthz while starting = %d, want 200", code)
	}
	if code, body := opsGet(t, base, "/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "starting") {
		t.Errorf("/readyz while starting = %d %q, want 503", code, body)
	}
	if code, _ := opsGet(t, base, "/metrics"); code != http.StatusServiceUnavailable {
		t.Errorf("/metrics while starting = %d, want 503", code)
	}
	close(release)
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("flockd ended early: %v\n%s", err, logs)
	}
	if code, body := opsGet(t, base, "/readyz"); code != http.StatusOK {
		t.Errorf("/readyz once provisioned = %d %q, want 200", code, body)
	}
	code, body := opsGet(t, base, "/metrics")
	if code != http.StatusOK || !strings.Contains(body, "# TYPE flockd_messages_total counter") {
		t.Errorf("/metrics = %d:\n%s", code, body)
	}
	code, body = opsGet(t, base, "/stats")
	var st platformtest.OpsStats
	if err := json.Unmarshal([]byte(body), &st); code != http.StatusOK || err != nil || !st.Ready || len(st.Metrics) == 0 {
		t.Errorf("/stats = %d %v: %s", code, err, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
}

// TestOpsOffByDefault: without -ops flockd serves no ops endpoints and
// says nothing of them.
func TestOpsOffByDefault(t *testing.T) {
	_, logs := serveInBackground(t, "-no-console")
	if strings.Contains(logs.String(), "ops endpoints") {
		t.Errorf("ops endpoints without -ops:\n%s", logs)
	}
}
