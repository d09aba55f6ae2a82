package gcpace

import (
	"math"
	"runtime/debug"
)

// fallbackMemory is the memory assumed where the system does not say.
const fallbackMemory = 1 << 30

// MemoryBudget is the heap budget a server keeps to by default: half of
// GOMEMLIMIT when it is set, else half of the memory the process may use
// (its cgroup's limit or the machine's memory, on Linux; 1 GiB where the
// system does not say).
func MemoryBudget() uint64 {
	if limit := debug.SetMemoryLimit(-1); limit > 0 && limit < math.MaxInt64 {
		return uint64(limit) / 2
	}
	if m, ok := systemMemory(); ok {
		return m / 2
	}
	return fallbackMemory / 2
}
