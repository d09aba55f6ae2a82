//go:build !linux

// This file holds the child process attributes elsewhere than on Linux:
// none (children are stopped by flockbench's own cleanup).

package main

import "syscall"

// childAttr returns no attributes.
func childAttr() *syscall.SysProcAttr { return nil }
