// This file holds what happens when the disk under the folder is full: a
// commit or a blob write that fails with ENOSPC (or EDQUOT, the user's
// disk quota) is reported as ErrFull, with nothing of it kept, and the
// next one that fits succeeds. SimulateFull makes the folder behave so
// without filling a disk, for tests. NoteWrite logs the episode: once when
// the disk first refuses a write, once when writes resume, never per
// request.

package datadir

import (
	"errors"
	"fmt"
	"syscall"
)

// errNoSpace is the error a simulated full disk fails writes with, as
// the kernel would.
var errNoSpace error = syscall.ENOSPC

// SimulateFull makes every commit and every blob write of the folder fail
// as on a full disk (on) until it is turned off again: a test hook for the
// storage-full paths of the services.
func (d *Dir) SimulateFull(on bool) { d.full.Store(on) }

// noSpace returns the error of a write while the folder simulates a full
// disk, nil otherwise.
func (d *Dir) noSpace() error {
	if d.full.Load() {
		return errNoSpace
	}
	return nil
}

// fullError wraps err, a write's failure in the folder dir, with ErrFull
// when it says the disk is full.
func fullError(dir string, err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return fmt.Errorf("%w: %s: %w", ErrFull, dir, err)
	}
	return err
}

// NoteWrite tells the folder the outcome of a write (a commit or a blob):
// the first write refused with ErrFull logs that the folder is full, and
// the first that succeeds after it logs that writes resume. Other
// outcomes are not logged: the services answer them.
func (d *Dir) NoteWrite(err error) {
	switch {
	case errors.Is(err, ErrFull):
		if !d.refusing.Swap(true) {
			d.log.Error("data folder full: writes are refused, reads go on, until space is freed", "folder", d.path, "err", err)
		}
	case err == nil:
		if d.refusing.Load() && d.refusing.Swap(false) {
			d.log.Info("data folder full no longer: writes resume", "folder", d.path)
		}
	}
}

// NoteWrite is the folder's NoteWrite for a write to db.
func (db *DB) NoteWrite(err error) { db.dir.NoteWrite(err) }
