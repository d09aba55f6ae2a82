//go:build !unix

// This file holds the folder lock where flock(2) does not exist: the lock
// file only records the pid, and the exclusive lock bbolt takes on every
// file it opens for writing keeps a second process out of the folder's
// files (Open then fails on the first of them, as in use).

package datadir

import "os"

func lockFile(*os.File) error   { return nil }
func unlockFile(*os.File) error { return nil }
