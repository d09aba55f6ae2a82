//go:build linux

// This file holds the trimming of a DB's mapping on Linux: bbolt reads
// its file through a shared read-only memory mapping, and every page it
// reads stays in the process's resident set (as file-mapped memory) until
// the mapping changes, so a file that grows with rows would make the
// resident memory grow with them although nothing is held. trim tells the
// kernel the process does not need the mapped pages now
// (MADV_DONTNEED): they stay in the page cache, and a later read faults
// them in again.

package datadir

import (
	"syscall"

	bolt "go.etcd.io/bbolt"
)

// trim drops the pages of the DB's mapping from the resident set: those
// below the file's high-water mark, the only ones a read can have touched.
// It runs inside a read transaction, which keeps bbolt from replacing the
// mapping meanwhile (bbolt remaps only with no read transaction open).
func (db *DB) trim() {
	_ = db.bolt.View(func(tx *bolt.Tx) error {
		start, size := db.bolt.Info().Data, uintptr(tx.Size())
		_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, start, size, syscall.MADV_DONTNEED)
		return nil
	})
}
