//go:build !linux

// This file holds the devices' dial option elsewhere than on Linux: none.

package main

import "syscall"

// bindNoPort does nothing outside Linux.
func bindNoPort(_, _ string, _ syscall.RawConn) error { return nil }
