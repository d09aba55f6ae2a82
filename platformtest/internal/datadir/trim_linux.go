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
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"

	bolt "go.etcd.io/bbolt"
)

// trim drops the pages of the DB's mapping from the resident set. It runs
// inside a read transaction, which keeps bbolt from replacing the mapping
// meanwhile.
func (db *DB) trim() {
	fi, err := os.Stat(db.bolt.Path())
	if err != nil {
		return
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	_ = db.bolt.View(func(*bolt.Tx) error {
		for _, m := range mappingsOf(st.Ino) {
			_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, m[0], m[1]-m[0], syscall.MADV_DONTNEED)
		}
		return nil
	})
}

// mappingsOf returns the address ranges at which the process maps the
// file with inode ino, from /proc/self/maps.
func mappingsOf(ino uint64) [][2]uintptr {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out [][2]uintptr
	want := strconv.FormatUint(ino, 10)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// start-end perms offset dev inode path
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[4] != want {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if ok && err1 == nil && err2 == nil && end > start {
			out = append(out, [2]uintptr{uintptr(start), uintptr(end)})
		}
	}
	return out
}
