package gcpace

import (
	"bytes"
	"context"
	"log/slog"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"
)

// TestStartRestores: the pacer runs from Start to stop, and stop gives
// the process back the setting it had.
func TestStartRestores(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(123))
	stop := Start(context.Background(), Policy{Interval: time.Second, MaxPercent: 400, Budget: 1 << 30, Every: time.Second}, slog.New(slog.DiscardHandler))
	if got := Current(); got != 100 {
		t.Errorf("while paced and idle GOGC = %d, want 100", got)
	}
	stop()
	if got := Current(); got != 123 {
		t.Errorf("after stop GOGC = %d, want the 123 it started with", got)
	}
}

// TestStartLeavesGOGC: with GOGC set in the environment Start does not
// touch the collector, and says so.
func TestStartLeavesGOGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	t.Setenv("GOGC", "150")
	var logged bytes.Buffer
	Start(context.Background(), Policy{Interval: time.Second, MaxPercent: 400, Budget: 1 << 30, Every: time.Second}, slog.New(slog.NewTextHandler(&logged, nil)))()
	if !strings.Contains(logged.String(), "GOGC is set") {
		t.Errorf("Start did not say it leaves GOGC alone; it logged %q", logged.String())
	}
	if got := Current(); got != 150 {
		t.Errorf("GOGC = %d, want 150", got)
	}
}

// TestBackToDefaultReturnsMemory: when the load is over (GOGC back to
// the default) the pacer collects and returns the free pages; while it
// raises GOGC it does not.
func TestBackToDefaultReturnsMemory(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	forced := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/cycles/forced:gc-cycles"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	log := slog.New(slog.DiscardHandler)
	before := forced()
	apply(300, log)
	if got := Current(); got != 300 {
		t.Fatalf("GOGC = %d after apply(300)", got)
	}
	if n := forced(); n != before {
		t.Errorf("raising GOGC forced %d collections, want none", n-before)
	}
	apply(100, log)
	if got := Current(); got != 100 {
		t.Fatalf("GOGC = %d after apply(100)", got)
	}
	if n := forced(); n == before {
		t.Error("back at the default, the pacer did not collect and return the free pages")
	}
}

// TestCurrent reads the setting and leaves it.
func TestCurrent(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(137))
	if got := Current(); got != 137 {
		t.Errorf("Current() = %d, want 137", got)
	}
	if got := debug.SetGCPercent(100); got != 137 {
		t.Errorf("after Current the setting is %d, want 137", got)
	}
}
