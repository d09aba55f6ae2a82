// This file holds the bound of the in-memory store of the data backends
// (without a data folder): WithMemoryRowLimit, flockd's -memory-rows, and
// what the platform says when the bound is reached (a log line, once, and
// the console's overview). It serves no URI.

package platformtest

import (
	"log/slog"
	"sync/atomic"
)

// DefaultMemoryRowLimit is flockd's bound on the rows it keeps in memory
// (-memory-rows) without a data folder: a million rows, about half a
// gigabyte.
const DefaultMemoryRowLimit = 1_000_000

// WithMemoryRowLimit bounds the table rows (error-logs included) that
// the data backends keep in memory, over every realm, to n: an append or
// publication that would pass it is refused with
// sys.dataservice.error.storage_full, as the platform refuses writes on a
// full disk, while reads go on. The platform logs it once when the bound
// is reached, and the console's overview shows it. n ≤ 0 (the default)
// keeps no bound. With a data folder (WithDataDir) rows are on disk and
// the bound does not apply.
func WithMemoryRowLimit(n int64) Option { return func(s *settings) { s.memoryRows = max(n, 0) } }

// memoryFull records that the in-memory store refused a write at its
// bound.
type memoryFull struct {
	limit atomic.Int64 // the bound, once reached; 0 before
}

// reached returns what the memory store calls when it reaches its bound:
// a log line, and the mark the console shows.
func (f *memoryFull) reached(log *slog.Logger) func(int64) {
	return func(limit int64) {
		f.limit.Store(limit)
		log.Warn("in-memory store full: appends are refused with storage_full; raise -memory-rows, or keep the rows on disk with a data folder (-data)",
			"rows", limit)
	}
}
