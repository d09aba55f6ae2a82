//go:build !linux

// This file reads a process's resident memory elsewhere than on Linux:
// it cannot (the reports then give the Go heap alone).

package main

import "errors"

// rssOf is not available on this system.
func rssOf(string) (int64, error) {
	return 0, errors.New("resident memory is read from /proc, which only Linux has")
}
