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
	var cpu *os.File
	if *f.cpu != "" {
		if cpu, err = os.Create(*f.cpu); err != nil {
			return nil, fmt.Errorf("cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			return nil, fmt.Errorf("cpuprofile: %w", err)
		}
	}
	return func() error {
		if cpu != nil {
			pprof.StopCPUProfile()
			if err := cpu.Close(); err != nil {
				return fmt.Errorf("cpuprofile: %w", err)
			}
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
