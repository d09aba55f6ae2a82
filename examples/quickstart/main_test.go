package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/leakcheck"
)

func TestQuickstart(t *testing.T) {
	leakcheck.Check(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"display-1 subscribed to com.example.readings",
		"display-1 received 21.5 °C measured at 2026-11-21T09:30:00Z",
		"display-1 called calibrate on device 1: calibrated (offset 0.25)",
		"sensor-1  stored 6 rows in table sensordata",
		"display-1 saw 6 new rows in realtime",
		"history   09:30 23.0 °C\nhistory   09:40 24.0 °C\nhistory   09:50 25.0 °C",
		"series    09:00 average 21.0 °C\nseries    09:30 average 24.0 °C",
		"done",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("transcript lacks %q:\n%s", want, out.String())
		}
	}
}
