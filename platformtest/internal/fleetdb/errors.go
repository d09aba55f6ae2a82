// This file holds the errors of the fake data backend and their wire
// shapes (docs/wire.md §10.2): refusals sys.dataservice.error.* with args
// [message] (sometimes kwargs), wamp.error.runtime_error with args [{}]
// (a plain JavaScript Error), with a Postgres-like object
// [{name, severity, code}], or with a typia assertion object
// [{method, path, expected, value | description}], and how a store's
// failure is answered (storeError). It serves no URI.

package fleetdb

import (
	"context"
	"errors"
	"fmt"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// The refusals of the data backend, by their error URI.
const (
	errInvalidTimeRange = wire.ErrInvalidTimeRange
	errInvalidFilter    = wire.ErrInvalidFilter
	errSecretColumn     = wire.ErrSecretColumn
	errInvalidLimit     = wire.ErrInvalidLimit
	errResultTooLarge   = wire.ErrResultTooLarge
	errInvalidMetric    = wire.ErrInvalidMetric
	errInvalidGroupBy   = wire.ErrInvalidGroupBy
	errTooManyGroups    = wire.ErrSeriesTooManyGroups
	errEntityConflict   = wire.ErrEntityKeyConflict
	errSecretSentinel   = wire.ErrSecretSentinel
	errSecretCipher     = wire.ErrSecretCiphertext
	errStorageFull      = wire.ErrStorageFull
)

// pgIOError is the code of a store's failure that is not a refusal (an
// I/O error, a lost connection): Postgres's io_error.
const pgIOError = "58030"

// fleetError is an ERROR the data backend answers a call with.
type fleetError struct {
	uri        string
	args       []any
	kwargs     map[string]any
	missingTsp bool  // a row without tsp: a publication leaves an error-logs row
	cause      error // a store's failure that is no refusal, for the log
}

func (e *fleetError) Error() string {
	return fmt.Sprintf("%s: %v", e.uri, e.args)
}

// result is the error as the answer of an invocation.
func (e *fleetError) result() client.InvokeResult {
	return client.InvokeResult{Err: wamp.URI(e.uri), Args: e.args, Kwargs: e.kwargs}
}

// dataRefusal is a sys.dataservice.error.* refusal with a message.
func dataRefusal(uri, format string, a ...any) *fleetError {
	return &fleetError{uri: uri, args: []any{fmt.Sprintf(format, a...)}}
}

// runtimeEmpty is what a plain JavaScript Error becomes on the wire:
// runtime_error with args [{}] (a row without tsp, a malformed batch).
func runtimeEmpty() *fleetError {
	return &fleetError{uri: wire.ErrRuntimeError, args: []any{map[string]any{}}}
}

// pgError is a Postgres error as node-postgres serialises it: only the
// enumerable fields name, severity and code.
func pgError(code string) *fleetError {
	return &fleetError{uri: wire.ErrRuntimeError, args: []any{map[string]any{
		"name": "error", "severity": "ERROR", "code": code,
	}}}
}

// typiaUndefined is the description typia gives a missing value.
const typiaUndefined = "The value at this path is `undefined`."

// typiaError is a failed typia.assert: the path of the first offending
// value, the expected type text and the value (a description instead when
// the value is undefined).
func typiaError(path, expected string, value any, undefined bool) *fleetError {
	obj := map[string]any{"method": "typia.assert", "path": path, "expected": expected}
	if undefined {
		obj["description"] = typiaUndefined
	} else {
		obj["value"] = store.JSONOut(store.JSONValue(value))
	}
	return &fleetError{uri: wire.ErrRuntimeError, args: []any{obj}}
}

// storeError answers a store's failure (store.go) as the platform does:
// a write whose answer was lost is outcome_unknown (never a refusal);
// a conflict, a full storage and too many series rows are refusals; a
// cancelled call is wamp.error.canceled; an error with a SQLSTATE is a
// Postgres error; anything else (I/O, a lost connection) the Postgres
// error io_error, with the cause kept for the log (logStoreFailure).
func storeError(table string, err error) *fleetError {
	var sqlErr interface{ SQLState() string }
	switch {
	case errors.Is(err, store.ErrConflict):
		return dataRefusal(errEntityConflict, "table %q: a row with this entity key and tsp exists", table)
	case errors.Is(err, store.ErrOutcomeUnknown):
		e := dataRefusal(wire.ErrOutcomeUnknown, "table %q: the rows may be stored or not: the storage's answer was lost (%v); "+
			"read them back before sending them again, or send them again with their entity key", table, err)
		e.cause = err
		return e
	case errors.Is(err, store.ErrFull):
		return dataRefusal(errStorageFull, "table %q: the write does not fit in the storage (%v)", table, err)
	case errors.Is(err, store.ErrTooManyGroups):
		e := dataRefusal(errTooManyGroups, "series of %q: more than %d rows", table, seriesGroupCap)
		e.kwargs = map[string]any{"tablename": table, "cap": int64(seriesGroupCap)}
		return e
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &fleetError{uri: wire.ErrCanceled, args: []any{fmt.Sprintf("table %q: %v", table, err)}}
	case errors.As(err, &sqlErr):
		return pgError(sqlErr.SQLState())
	}
	e := pgError(pgIOError)
	e.cause = err
	return e
}

// logStoreFailure logs a store's failure that the answer does not explain.
func logStoreFailure(h *realm.Host, op, table string, e *fleetError) {
	if e.cause != nil && h != nil && h.Log != nil {
		h.Log.Warn("fleetdb: storage failed", "op", op, "table", table, "err", e.cause)
	}
}
