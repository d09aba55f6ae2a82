// This file holds Start: a program's pacer from start to stop, for the
// programs that pace their collector (flockd, flocksim).

package gcpace

import (
	"context"
	"log/slog"
	"os"
	"runtime/debug"
	"time"
)

// ServerPolicy is the pacing of the long-running programs (flockd,
// flocksim): collections about interval apart under load, GOGC at most
// 400 (four times the default's headroom) within MemoryBudget, the rate
// sampled every 5 s.
func ServerPolicy(interval time.Duration) Policy {
	return Policy{Interval: interval, MaxPercent: 400, Budget: MemoryBudget(), Every: 5 * time.Second}
}

// Start paces the collector with p until the function it returns is
// called, which also restores the GOGC the process had. When GOGC is set
// in the environment it leaves the collector alone and says so in log.
// p must be valid (Run's checks).
func Start(ctx context.Context, p Policy, log *slog.Logger) (stop func()) {
	if v, set := os.LookupEnv("GOGC"); set {
		log.Info("garbage collector: GOGC is set, the pacer leaves it alone", "GOGC", v)
		return func() {}
	}
	log.Debug("garbage collector paced", "interval", p.Interval, "max_gogc", p.MaxPercent, "budget_bytes", p.Budget)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	initial := debug.SetGCPercent(DefaultPercent)
	go func() {
		defer close(done)
		_ = Run(ctx, p, func(percent int) { apply(percent, log) }) // p is valid: Run returns at ctx's end
	}()
	return func() {
		cancel()
		<-done
		debug.SetGCPercent(initial)
	}
}

// apply sets the collector to percent. Back at the default, the load is
// over: the heap may have grown to several times what is live while it
// lasted, and Go would keep those pages resident (it returns only what
// exceeds the new goal by a tenth, and an idle heap never reaches the
// goal), so apply collects once and returns the free pages, which an
// idle process then no longer pays for.
func apply(percent int, log *slog.Logger) {
	debug.SetGCPercent(percent)
	log.Debug("garbage collector", "gogc", percent)
	if percent == DefaultPercent {
		debug.FreeOSMemory()
	}
}

// Current returns the collector's GOGC setting now, leaving it as it is
// (for logs and tests: a change made meanwhile by another goroutine is
// undone).
func Current() int {
	p := debug.SetGCPercent(DefaultPercent)
	debug.SetGCPercent(p)
	return p
}
