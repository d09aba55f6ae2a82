// This file holds flocksim's garbage collector: paced like flockd's
// (internal/gcpace), so that the simulator, which shares the machine with
// the flockd it drives, spends little of it marking its devices.

package main

import (
	"time"

	"github.com/flockgo/ironflock/internal/gcpace"
)

// gcPolicy is flocksim's pacing, flockd's default: collections about 40 s
// apart under load; GOGC in the environment leaves the collector alone.
func gcPolicy() gcpace.Policy { return gcpace.ServerPolicy(40 * time.Second) }
