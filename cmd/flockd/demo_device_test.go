package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/internal/leakcheck"
)

// TestDemoFilesAndTool: the demo stores files (an image among them) and
// its device sensor-2 serves read_sensor, answered from its newest demo
// reading, through flockd's tool route.
func TestDemoFilesAndTool(t *testing.T) {
	leakcheck.Check(t)
	p := serveWithPlatform(t)
	in := p.InstallationOf(2, 1, "DEV")
	if in == nil || in.Device().Name() != demoToolDevice {
		t.Fatalf("installation of device 2: %v", in)
	}
	var types []string
	for _, o := range p.FileObjects(in.Realm()) {
		types = append(types, o.Namespace+" "+o.ContentType)
	}
	if len(types) != 3 || !strings.Contains(strings.Join(types, ","), "snapshots image/png") {
		t.Errorf("demo files %q, want three with an image", types)
	}
	status, b := postTool(t, p.HTTPURL()+"/v1/flockd/devices/2/apps/1/agents/assistant/tools/read_sensor", demoToken,
		`{"arguments":{"unit":"F"}}`)
	var answer struct {
		OK     bool           `json:"ok"`
		Result map[string]any `json:"result"`
	}
	// sensor-2's newest demo reading is 20.5 + 1 + 4/2 = 23.5 °C: 74.3 °F.
	if err := json.Unmarshal(b, &answer); err != nil || !answer.OK || answer.Result["temperature"] != 74.3 ||
		answer.Result["unit"] != "F" || answer.Result["device"] != "sensor-2" {
		t.Errorf("read_sensor: %d %s", status, b)
	}
}
