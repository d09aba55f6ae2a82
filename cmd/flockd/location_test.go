package main

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
)

// TestServeLocation: flockd serves the location service; the device
// record shows what a device set.
func TestServeLocation(t *testing.T) {
	f, _ := serveInBackground(t)
	c := joinWithEnv(t, f.WSURL, f.Installations[0].Env)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := c.Call(ctx, wire.LocationProc, nil, wamp.List{map[string]any{"long": 8.68, "lat": 50.11}}, nil, nil); err != nil {
		t.Fatal(err)
	}
	_, body := apiGet(t, f.HTTPURL+"/v1/platform/devices", f.Tokens["alice"])
	var devices []struct {
		Name     string `json:"name"`
		Location *struct {
			Long      float64 `json:"long"`
			Lat       float64 `json:"lat"`
			UpdatedAt string  `json:"updated_at"`
		} `json:"location"`
	}
	if err := json.Unmarshal(body, &devices); err != nil || len(devices) != 2 {
		t.Fatalf("%v: %s", err, body)
	}
	loc := devices[0].Location
	iso := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	if devices[0].Name != "sensor-1" || loc == nil || loc.Long != 8.68 || loc.Lat != 50.11 || !iso.MatchString(loc.UpdatedAt) {
		t.Errorf("sensor-1: %s", body)
	}
	if devices[1].Location != nil {
		t.Errorf("sensor-2 has a location: %s", body)
	}
}
