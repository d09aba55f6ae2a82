// This file holds -gc-interval: flockd spaces its garbage collections
// under sustained load (internal/gcpace), so that the appends of a large
// fleet seldom arrive while a collection marks its sessions.

package main

import (
	"context"
	"flag"
	"log/slog"
	"time"

	"github.com/flockgo/ironflock/internal/gcpace"
)

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
	return gcpace.Start(ctx, gcpace.ServerPolicy(*f.interval), log)
}
