//go:build !unix

// This file holds the CPU time of this process where getrusage does not
// exist: not measured.

package main

import (
	"errors"
	"time"
)

// processCPU is not available on this system.
func processCPU() (time.Duration, error) {
	return 0, errors.New("flockbench measures CPU time with getrusage, which this system lacks")
}
