// This file holds the errors of the data folder: sentinels for errors.Is,
// wrapped with the folder, the file and what is wrong.

package datadir

import (
	"errors"
	"fmt"
)

// Sentinel errors, matched with errors.Is.
var (
	// ErrInUse reports a folder another process (or another Open in this
	// one) holds.
	ErrInUse = errors.New("data folder in use")
	// ErrNewerFormat reports a folder written by a newer format version
	// than this program reads.
	ErrNewerFormat = errors.New("data folder of a newer format")
	// ErrDamaged reports a folder or a file of it that cannot be served
	// whole: truncated, damaged pages, a value whose checksum does not
	// match, a file that is not what its name says.
	ErrDamaged = errors.New("data folder damaged")
	// ErrNotDataDir reports a folder that holds files but is not a data
	// folder (no FORMAT file).
	ErrNotDataDir = errors.New("not a flockd data folder")
	// ErrReadOnly reports a write to a folder opened to be checked.
	ErrReadOnly = errors.New("data folder opened read-only")
	// ErrClosed reports an operation on a closed folder or file.
	ErrClosed = errors.New("data folder closed")
	// ErrFull reports a write that did not fit: the disk (or the user's
	// quota on it) is full. Nothing of the write is kept; reads go on,
	// and writes succeed again once there is room.
	ErrFull = errors.New("data folder full")
)

// damaged returns the error of a damaged file of the folder dir.
func damaged(dir, file, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s: %s; it is neither reset nor served (restore a copy of the folder, or start anew with another folder or -memory)",
		ErrDamaged, dir, file, fmt.Sprintf(format, args...))
}
