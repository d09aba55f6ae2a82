//go:build !linux

package gcpace

// systemMemory is not known on this system.
func systemMemory() (uint64, bool) { return 0, false }
