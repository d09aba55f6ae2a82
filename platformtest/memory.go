// This file holds the bounds of the in-memory store of the data backends
// (without a data folder): WithMemoryRowLimit, flockd's -memory-rows,
// WithMemoryByteLimit, flockd's -memory-bytes, and what the platform says
// when a bound is reached (a log line, once, and the console's overview).
// It serves no URI.

package platformtest

import (
	"log/slog"
	"sync/atomic"
)

// DefaultMemoryRowLimit is flockd's bound on the rows it keeps in memory
// (-memory-rows) without a data folder: a million rows. A million small
// rows (four columns) hold about 300 MiB; flockd's resident set reaches
// about 600 MB while they are appended (docs/flockd.md §8).
const DefaultMemoryRowLimit = 1_000_000

// DefaultMemoryByteLimit is flockd's bound on the bytes of the rows it
// keeps in memory (-memory-bytes) without a data folder: 512 MiB of rows,
// as the store estimates them, which with the Go collector's headroom
// keeps flockd's resident set near 1 GB, whatever the size of the rows. A
// fixed figure rather than a share of the machine's memory: flockd is a
// development tool, and the same bound on a laptop and a CI runner makes
// the same appends fail.
const DefaultMemoryByteLimit = 512 << 20

// WithMemoryByteLimit bounds the bytes of the table rows that the data
// backends keep in memory, over every realm, to n (as the store estimates
// a row's cost: its values' bytes and about 300 bytes of its own), as
// WithMemoryRowLimit bounds their number: an append or publication that
// would pass it is refused with sys.dataservice.error.storage_full, said
// once in the log and on the console's overview. n ≤ 0 (the default)
// keeps no bound. With a data folder the bound does not apply.
func WithMemoryByteLimit(n int64) Option { return func(s *settings) { s.memoryBytes = max(n, 0) } }

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
	bytes atomic.Int64 // the byte bound, once reached; 0 before
	// usage returns the bytes of the store's rows and whether it refuses
	// appends; nil without the in-memory store.
	usage func() (int64, bool)
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

// reachedBytes is reached for the byte bound.
func (f *memoryFull) reachedBytes(log *slog.Logger) func(int64) {
	return func(limit int64) {
		f.bytes.Store(limit)
		log.Warn("in-memory store full: appends are refused with storage_full; raise -memory-bytes, or keep the rows on disk with a data folder (-data)",
			"bytes", limit)
	}
}
