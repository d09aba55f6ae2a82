// This file holds the errors of package outbox: the sentinels for
// errors.Is and Error, the wrapper naming the operation, the table and the
// reason. Refusals of the data backend keep their *client.WampError.

package outbox

import (
	"errors"
	"fmt"

	berrors "go.etcd.io/bbolt/errors"
)

// Sentinel errors, matched with errors.Is.
var (
	// ErrFull reports an outbox at its size limit (WithMaxRows,
	// WithMaxBytes) under the Fail policy, or a batch larger than the
	// limit itself under any policy.
	ErrFull = errors.New("outbox is full")
	// ErrClosed reports an operation on a closed outbox, or one that was
	// waiting when Close was called.
	ErrClosed = errors.New("outbox is closed")
	// ErrDisk reports that the disk refused a read or a write (full, read
	// only, failing): the operation did not take effect. The error also
	// wraps the file system's error (syscall.ENOSPC, …).
	ErrDisk = errors.New("outbox disk error")
	// ErrCorrupt reports a directory whose queue file is damaged: not a
	// database, or a database whose records cannot be read.
	ErrCorrupt = errors.New("outbox file is corrupt")
	// ErrForeign reports a directory that holds something other than an
	// outbox: a file in the place of the queue, a database of another
	// program, or an outbox of a newer format.
	ErrForeign = errors.New("not an outbox directory")
	// ErrLocked reports a directory another open outbox uses, in this
	// process or another one.
	ErrLocked = errors.New("outbox directory is in use")
	// ErrInvalidArgument reports an argument refused before anything was
	// stored: an empty table name, a row that is not an object, ….
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrUndelivered reports that rows Flush waited for left the queue
	// without being delivered: refused for good by the data backend (they
	// are in the dead-letter list) or dropped by the DropOldest policy.
	ErrUndelivered = errors.New("rows were not delivered")
)

// Error is the error of every operation of the package: it names the
// operation and, when one is concerned, the table, and wraps the reason
// (a sentinel, a *client.WampError, a file system error, …).
type Error struct {
	Op    string // "Append", "Open", "Flush", …
	Table string // "" when no table is concerned
	Err   error
}

// Error reads like: outbox: Append "readings": outbox is full: the limit
// of 10000 rows is reached.
func (e *Error) Error() string {
	if e.Table == "" {
		return "outbox: " + e.Op + ": " + e.Err.Error()
	}
	return fmt.Sprintf("outbox: %s %q: %s", e.Op, e.Table, e.Err.Error())
}

// Unwrap returns the reason.
func (e *Error) Unwrap() error { return e.Err }

// opErr wraps err in an Error naming op and table; nil stays nil.
func opErr(op, table string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) && e.Op == op {
		return err
	}
	return &Error{Op: op, Table: table, Err: err}
}

// reason wraps a sentinel with a text: errors.Is(reason(ErrFull, …), ErrFull).
func reason(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
}

// diskErr marks an error of the store as ErrDisk, keeping the file
// system's error for errors.Is. The store closed under an operation is
// ErrClosed; errors of this package pass unchanged.
func diskErr(err error) error {
	switch {
	case err == nil, errors.Is(err, ErrDisk), errors.Is(err, ErrCorrupt), errors.Is(err, ErrClosed):
		return err
	case errors.Is(err, berrors.ErrDatabaseNotOpen):
		return ErrClosed
	}
	return fmt.Errorf("%w: %w", ErrDisk, err)
}
