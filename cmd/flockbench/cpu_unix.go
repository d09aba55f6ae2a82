//go:build unix

// This file holds the CPU time of this process on Unix: getrusage.

package main

import (
	"syscall"
	"time"
)

// processCPU returns the user and system CPU time this process has used
// (all its threads; not its children).
func processCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
