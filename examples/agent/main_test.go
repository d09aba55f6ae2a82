package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/dotenv"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/platformtest"
)

func TestAgentExample(t *testing.T) {
	leakcheck.Check(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"press-1   serves 1.1.1.DEV.read_temperature, 1.1.1.DEV.schedule_service, 1.1.1.DEV.vibration_history",
		`read_temperature {"device_key":1,"sensor":"spindle","unit":"F"} as keyword    → {"sensor":"spindle","unit":"F","value":106.7}`,
		`read_temperature {"device_key":1,"sensor":"spindle","unit":"F"} as object     → {"sensor":"spindle","unit":"F","value":106.7}`,
		`read_temperature {"device_key":1,"sensor":"spindle","unit":"F"} as positional → {"sensor":"spindle","unit":"F","value":106.7}`,
		`read_temperature {"sensor":"belt"} → wamp.error.invalid_argument: invalid arguments: parameter "sensor": value must be one of 'spindle', 'coolant', 'cabinet'`,
		`agent     line_assistant: read_temperature {"device_key":1,"sensor":"spindle"} → {"sensor":"spindle","unit":"C","value":41.5}`,
		`agent       maintenance_planner: vibration_history {"device_key":1,"samples":3} → [{"at":"2026-11-21T09:00:00Z","rms_mm_s":7.5},{"at":"2026-11-21T08:00:00Z","rms_mm_s":7.25},{"at":"2026-11-21T07:00:00Z","rms_mm_s":7}]`,
		`agent       maintenance_planner: schedule_service {"device_key":1,"reason":"spindle vibration up 0.5 mm/s in two hours","within_days":2} → {"slot":"2026-11-23T06:00:00Z","ticket":"SRV-0001"}`,
		`agent     line_assistant: ask_maintenance {"question":"The spindle runs hot. Does the press need a service?"} → "Bearing wear: vibration rose from 7.0 to 7.5 mm/s in two hours. Booked SRV-0001 for 2026-11-23 06:00 UTC."`,
		"answer    The spindle is at 41.5 °C and vibrates more every hour: service SRV-0001 is booked for 23 November.",
		"done",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("transcript lacks %q:\n%s", want, out.String())
		}
	}
}

// TestFlockdMode serves the tools as with -env, on a platform
// provisioned from flockd.yml as flockd would, and calls one through
// flockd's tool route as the curl of docs/flockd.md §6 does.
func TestFlockdMode(t *testing.T) {
	leakcheck.Check(t)
	b, err := os.ReadFile("flockd.yml")
	if err != nil {
		t.Fatal(err)
	}
	seed, err := platformtest.ParseSeed(b, ".")
	if err != nil {
		t.Fatal(err)
	}
	p := platformtest.New(t)
	res, err := p.Apply(seed)
	if err != nil {
		t.Fatal(err)
	}

	// The device's environment as flockd env -format dotenv writes it.
	var env map[string]string
	for _, in := range res.Installations {
		if in.Device().Name() == "press-1" && in.App().Name() == appName {
			env = in.Env()
		}
	}
	b, err = dotenv.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	envFile := filepath.Join(t.TempDir(), "press-1.env")
	if err := os.WriteFile(envFile, b, 0o600); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	var wg sync.WaitGroup
	var out bytes.Buffer
	var serveErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		serveErr = serveDevice(ctx, &out, client.WithEnvFile(envFile), func() { close(ready) })
	}()
	defer func() {
		cancel()
		wg.Wait()
		if serveErr != nil {
			t.Errorf("serveDevice: %v", serveErr)
		}
	}()
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		t.Fatal("the tools were not served")
	}

	body := `{"arguments":{"samples":2},"convention":"positional"}`
	req, err := http.NewRequest("POST", p.HTTPURL()+"/v1/flockd/devices/1/apps/1/agents/maintenance_planner/tools/vibration_history", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer alice-token")
	rsp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer rsp.Body.Close()
	b, _ = io.ReadAll(rsp.Body)
	var answer struct {
		OK     bool  `json:"ok"`
		Args   []any `json:"args"`
		Result []struct {
			RMS float64 `json:"rms_mm_s"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &answer); err != nil || rsp.StatusCode != 200 || !answer.OK || len(answer.Result) != 2 || answer.Result[1].RMS != 7.25 {
		t.Errorf("%d %s", rsp.StatusCode, b)
	}
}
