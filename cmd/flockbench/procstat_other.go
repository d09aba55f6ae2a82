//go:build !linux

// This file holds what flockbench reads of another process elsewhere
// than on Linux: nothing, the router benchmark needs /proc.

package main

import (
	"errors"
	"time"
)

var errNoProc = errors.New("flockbench -router reads the routers' CPU time and memory from /proc, which only Linux has")

// childCPU is not available on this system.
func childCPU(int) (time.Duration, error) { return 0, errNoProc }

// childMemory is not available on this system.
func childMemory(int) (rss, peak int64, err error) { return 0, 0, errNoProc }
