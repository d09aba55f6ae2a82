// This file holds -cpuprofile and -memprofile: profiles of flockd itself,
// to see where a router under load spends its CPU and memory (flockbench
// -router -router-cpuprofile uses the first).

package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/flockgo/ironflock/internal/cpuprofile"
)

// profileFlags are the profiling flags.
type profileFlags struct{ cpu, mem *string }

func addProfileFlags(fs *flag.FlagSet) profileFlags {
	return profileFlags{
		cpu: fs.String("cpuprofile", "", "write a CPU profile of flockd to `file`, from start to stop"),
		mem: fs.String("memprofile", "", "write a heap profile of flockd to `file` when it stops"),
	}
}

// start starts the CPU profile; the function returned stops it and writes
// the heap profile.
func (f profileFlags) start() (stop func() error, err error) {
	stopCPU := func() error { return nil }
	if *f.cpu != "" {
		if stopCPU, err = cpuprofile.Start(*f.cpu); err != nil {
			return nil, err
		}
	}
	return func() error {
		if err := stopCPU(); err != nil {
			return err
		}
		if *f.mem == "" {
			return nil
		}
		m, err := os.Create(*f.mem)
		if err != nil {
			return fmt.Errorf("memprofile: %w", err)
		}
		runtime.GC()
		if err := pprof.WriteHeapProfile(m); err != nil {
			m.Close()
			return fmt.Errorf("memprofile: %w", err)
		}
		return m.Close()
	}, nil
}
