package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/leakcheck"
)

func TestCrossApp(t *testing.T) {
	leakcheck.Check(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"station-1 stored 6 readings",
		"panel-1   weather shares readings (Air temperature, every ten minutes): tsp station celsius api_key secret",
		"panel-1   new reading 07:00 14.5 °C (key __secret__)",
		"history   06:40 13.0 °C\nhistory   06:50 13.5 °C\nhistory   07:00 14.5 °C",
		"series    06:00 average 12.25 °C\nseries    07:00 average 14.50 °C",
		"private   calibration: PRIVATE_TABLE",
		"secret    filter on api_key: SECRET_COLUMN",
		"panel-1   access lost: NO_GRANT",
		"panel-1   next read: NO_GRANT",
		"done",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("transcript lacks %q:\n%s", want, out.String())
		}
	}
}
