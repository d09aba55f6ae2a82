//go:build unix

// This file holds the Unix side of the spill folder (spill.go): whether a
// process runs and whether a folder is the user's. It serves no URI.

package memory

import (
	"errors"
	"os"
	"syscall"
)

// processRuns reports whether the process pid exists (signal 0 reaches
// it, or it belongs to another user).
func processRuns(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// ownedByUser reports whether fi belongs to the user running the process.
func ownedByUser(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || int(st.Uid) == os.Getuid()
}
