package store

import "errors"

// The errors a backend reports for what the platform answers with a
// refusal. Backends wrap them (fmt.Errorf("…: %w", store.ErrConflict)) so
// that the message says what was being done; services test them with
// errors.Is.
var (
	// ErrConflict: what is written exists already (a row with the same
	// entity key and tsp, an object or an entity with the same name), or
	// comes twice in the same write.
	ErrConflict = errors.New("exists already")
	// ErrFull: the write does not fit (a full disk, a backend's bound on
	// rows or bytes). Nothing of the write is kept; reads still work, and
	// writes succeed again once there is room. One error for rows and
	// objects alike.
	ErrFull = errors.New("storage full")
	// ErrOutcomeUnknown: the write reached the storage but its answer did
	// not come back (a lost connection, an I/O error at commit): it may be
	// kept or not.
	ErrOutcomeUnknown = errors.New("the outcome of the write is unknown")
	// ErrNotSupported: the backend does not do this (it cannot run a
	// transform's SQL, say).
	ErrNotSupported = errors.New("not supported by this store")
)

// SQLError is a failure a backend reports with a PostgreSQL error code
// (SQLSTATE): a statement the database refused. The data service answers
// it as PostgreSQL's error.
type SQLError struct {
	Code string // SQLSTATE, e.g. 22P02
	Msg  string // the database's message
}

// Error returns the message with its code.
func (e *SQLError) Error() string { return e.Msg + " (SQLSTATE " + e.Code + ")" }

// SQLState returns the error's SQLSTATE.
func (e *SQLError) SQLState() string { return e.Code }
