// This file holds the errors of the fake data backend and their wire
// shapes (docs/wire.md §10.2): refusals sys.dataservice.error.* with args
// [message] (sometimes kwargs), wamp.error.runtime_error with args [{}]
// (a plain JavaScript Error), with a Postgres-like object
// [{name, severity, code}], or with a typia assertion object
// [{method, path, expected, value | description}]. It serves no URI.

package fleetdb

import (
	"fmt"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
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
)

// fleetError is an ERROR the data backend answers a call with.
type fleetError struct {
	uri        string
	args       []any
	kwargs     map[string]any
	missingTsp bool // a row without tsp: a publication leaves an error-logs row
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
		obj["value"] = jsonOut(jsonValue(value))
	}
	return &fleetError{uri: wire.ErrRuntimeError, args: []any{obj}}
}
