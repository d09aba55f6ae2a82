package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"log/slog"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// gogc reads the collector's setting without changing it.
func gogc() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

func gcFlagsFor(t *testing.T, args ...string) gcFlags {
	t.Helper()
	fs := flag.NewFlagSet("flockd", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := addGCFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestGCPacingRestores: the pacer runs from start to stop, and stop gives
// the process back the setting it had.
func TestGCPacingRestores(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(123))
	stop := gcFlagsFor(t).start(context.Background(), slog.New(slog.DiscardHandler))
	if got := gogc(); got != 100 {
		t.Errorf("while paced and idle GOGC = %d, want 100", got)
	}
	stop()
	if got := gogc(); got != 123 {
		t.Errorf("after stop GOGC = %d, want the 123 it started with", got)
	}
}

// TestGCPacingLeavesGOGC: with GOGC set, or -gc-interval 0, flockd does
// not touch the collector.
func TestGCPacingLeavesGOGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	t.Run("GOGC set", func(t *testing.T) {
		t.Setenv("GOGC", "150")
		var logged bytes.Buffer
		stop := gcFlagsFor(t).start(context.Background(), slog.New(slog.NewTextHandler(&logged, nil)))
		stop()
		if !strings.Contains(logged.String(), "GOGC is set") {
			t.Errorf("flockd did not say it leaves GOGC alone; it logged %q", logged.String())
		}
		if got := gogc(); got != 150 {
			t.Errorf("GOGC = %d, want 150", got)
		}
	})
	t.Run("-gc-interval 0", func(t *testing.T) {
		f := gcFlagsFor(t, "-gc-interval", "0")
		if *f.interval != 0 {
			t.Fatalf("interval %v", *f.interval)
		}
		f.start(context.Background(), slog.New(slog.DiscardHandler))()
		if got := gogc(); got != 150 {
			t.Errorf("GOGC = %d, want 150", got)
		}
	})
}

func TestGCIntervalDefault(t *testing.T) {
	if got := *gcFlagsFor(t).interval; got != 40*time.Second {
		t.Errorf("-gc-interval defaults to %v, want 40s", got)
	}
}
