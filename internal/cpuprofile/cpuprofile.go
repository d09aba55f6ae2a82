// Package cpuprofile writes a CPU profile of the running program to a file,
// for the commands' -cpuprofile flags (flockd, flocksim, flockbench).
package cpuprofile

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// Start starts profiling into a new file at path; the function returned
// stops the profile and closes the file, returning the close's error.
func Start(path string) (stop func() error, err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpuprofile %s: %w", path, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("cpuprofile: %w", err)
		}
		return nil
	}, nil
}
