// This file holds -cpuprofile: a CPU profile of the benchmark process, to
// see where a client's CPU per operation goes.

package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile starts profiling into path and returns the function
// that stops it and closes the file.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
