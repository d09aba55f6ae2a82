//go:build !linux

// This file holds the child process attributes elsewhere than on Linux:
// none (flockd is stopped by flocksim's own cleanup).

package main

import "syscall"

// childAttr returns no attributes.
func childAttr() *syscall.SysProcAttr { return nil }
