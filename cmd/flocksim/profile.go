// This file holds -cpuprofile: a CPU profile of flocksim itself, to tell
// the simulator's cost from flockd's when both share a machine.

package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile starts profiling into the file at path; the function
// returned stops and closes it.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile %s: %w", path, err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
