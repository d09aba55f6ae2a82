//go:build !linux

// This file holds trim where there is nothing to trim.

package datadir

// trim does nothing: the resident set is not trimmed on this system.
func (*DB) trim() {}
