package main

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"runtime/debug"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/gcpace"
)

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

// TestGCPacingOff: with -gc-interval 0 flockd does not touch the
// collector (gcpace's tests cover the pacer itself, and GOGC set in the
// environment).
func TestGCPacingOff(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	f := gcFlagsFor(t, "-gc-interval", "0")
	if *f.interval != 0 {
		t.Fatalf("interval %v", *f.interval)
	}
	f.start(context.Background(), slog.New(slog.DiscardHandler))()
	if got := gcpace.Current(); got != 150 {
		t.Errorf("GOGC = %d, want 150", got)
	}
}

// TestGCPacingOn: with the default interval flockd paces: GOGC is Go's
// default while idle, and the one it started with after stop.
func TestGCPacingOn(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(123))
	stop := gcFlagsFor(t).start(context.Background(), slog.New(slog.DiscardHandler))
	paced := gcpace.Current()
	stop()
	if after := gcpace.Current(); paced != 100 || after != 123 {
		t.Errorf("GOGC %d while paced, %d after stop; want 100 and 123", paced, after)
	}
}

func TestGCIntervalDefault(t *testing.T) {
	if got := *gcFlagsFor(t).interval; got != 40*time.Second {
		t.Errorf("-gc-interval defaults to %v, want 40s", got)
	}
}
