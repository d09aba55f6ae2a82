// This file holds -gc-interval: flockd spaces its garbage collections
// under sustained load (internal/gcpace), so that the appends of a large
// fleet seldom arrive while a collection marks its sessions.

package main

import (
	"context"
	"flag"
	"log/slog"
	"os"
	"runtime/debug"
	"time"

	"github.com/flockgo/ironflock/internal/gcpace"
)

// gcMaxPercent bounds the GOGC flockd sets: four times the default's
// headroom.
const gcMaxPercent = 400

// gcFlags are the collector's command-line flags.
type gcFlags struct{ interval *time.Duration }

func addGCFlags(fs *flag.FlagSet) gcFlags {
	return gcFlags{interval: fs.Duration("gc-interval", 40*time.Second,
		"under sustained load keep garbage collections about `duration` apart, raising GOGC up to 400 within half of "+
			"the memory (or of GOMEMLIMIT); back to Go's default once the load goes (0: Go's default throughout; "+
			"ignored when GOGC is set)")}
}

// start paces the collector until the function it returns is called,
// which also restores the GOGC flockd started with; nothing runs when
// the interval is 0 or GOGC is set in the environment.
func (f gcFlags) start(ctx context.Context, log *slog.Logger) (stop func()) {
	if *f.interval <= 0 {
		return func() {}
	}
	if v, set := os.LookupEnv("GOGC"); set {
		log.Info("garbage collector: GOGC is set, flockd leaves it alone", "GOGC", v)
		return func() {}
	}
	p := gcpace.Policy{Interval: *f.interval, MaxPercent: gcMaxPercent, Budget: gcpace.MemoryBudget(), Every: 5 * time.Second}
	log.Debug("garbage collector paced", "interval", p.Interval, "max_gogc", p.MaxPercent, "budget_bytes", p.Budget)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	initial := debug.SetGCPercent(gcpace.DefaultPercent)
	go func() {
		defer close(done)
		_ = gcpace.Run(ctx, p, func(percent int) { applyGC(percent, log) }) // the policy is valid: Run returns at ctx's end
	}()
	return func() {
		cancel()
		<-done
		debug.SetGCPercent(initial)
	}
}

// applyGC sets the collector to percent. Back at the default, the load is
// over: the heap may have grown to several times what is live while it
// lasted, and Go would keep those pages resident (it returns only what
// exceeds the new goal by a tenth, and an idle heap never reaches the
// goal), so flockd collects once and returns the free pages, which an
// idle fleet then no longer pays for.
func applyGC(percent int, log *slog.Logger) {
	debug.SetGCPercent(percent)
	log.Debug("garbage collector", "gogc", percent)
	if percent == gcpace.DefaultPercent {
		debug.FreeOSMemory()
	}
}
