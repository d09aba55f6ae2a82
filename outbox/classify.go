// This file holds how the sender reads the outcome of a send: which
// errors mean "send again now", "ask first whether it was stored", "wait
// and retry", "this table is refused" and "a row of this batch is
// refused". doc.go lists the classes for users.

package outbox

import (
	"context"
	"errors"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/wire"
)

// class is what the sender does after a send.
type class int

const (
	// delivered: the backend stored the batch.
	delivered class = iota
	// again: nothing was stored (the client had no session, or the
	// request never left it); send again at once, the client waits for
	// its supervisor's next session.
	again
	// unknown: the request was sent and the answer lost; the batch may be
	// stored. With an id column, ask the history before sending again.
	unknown
	// stopped: the client or the outbox ended.
	stopped
	// temporary: a refusal that passes (storage full, rate limits, an
	// unclassified refusal); wait and send again.
	temporary
	// tableRefused: the table is refused for good (not declared); every
	// row of the batch goes to the dead-letter list.
	tableRefused
	// rowRefused: some row of the batch is refused for good (validation);
	// the batch is split until that row is found and dead-lettered.
	rowRefused
)

// String names the class in logs and tests.
func (c class) String() string {
	return [...]string{"delivered", "again", "unknown", "stopped", "temporary", "tableRefused", "rowRefused"}[c]
}

// rowURIs are the data backend's refusals of a row's content.
var rowURIs = map[string]bool{
	wire.ErrRuntimeError:      true, // a row without tsp, a Postgres type error, a payload of the wrong shape
	wire.ErrEntityKeyConflict: true, // the same entity key and tsp twice (checked against the history first)
	wire.ErrSecretSentinel:    true, // __secret__ without a complete entity key
	wire.ErrSecretCiphertext:  true, // a secret value that is already ciphertext
	wire.ErrInvalidArgument:   true, // a payload the callee refused (not the "no handler" race, which the client retries)
}

// transientSQLStates are the classes of Postgres errors that pass:
// connection exceptions, rolled back transactions, insufficient
// resources, operator intervention, system and internal errors.
var transientSQLStates = map[string]bool{"08": true, "40": true, "53": true, "57": true, "58": true, "XX": true}

// classify reads the error of a send or of a history check. ctxErr is the
// sender's own context error, if it ended (Close, a stopped client).
func classify(err error, ctxErr error) class {
	switch {
	case err == nil:
		return delivered
	case ctxErr != nil, errors.Is(err, client.ErrStopped):
		return stopped
	case errors.Is(err, client.ErrOutcomeUnknown),
		errors.Is(err, context.DeadlineExceeded), // the send timeout: CANCEL was sent, the row may be stored
		errors.Is(err, client.ErrTimeout):
		return unknown
	case errors.Is(err, client.ErrNotConnected), errors.Is(err, client.ErrNotSent):
		return again
	case errors.Is(err, client.ErrUnknownTable), errors.Is(err, client.ErrNotServed):
		return tableRefused
	case errors.Is(err, client.ErrInvalidArgument):
		return rowRefused // the client refused the batch before sending it
	}
	var we *client.WampError
	if !errors.As(err, &we) {
		return temporary
	}
	switch we.URI {
	case wire.ErrTimeout, wire.ErrCanceled:
		return unknown // the router gave up on a call the backend may have run
	case wire.ErrRuntimeError:
		if transientSQLStates[sqlStateClass(we)] {
			return temporary
		}
	}
	if rowURIs[we.URI] {
		return rowRefused
	}
	// storage_full, storage_overusage, rate_limited, no_such_procedure
	// after the client's window, not_authorized and every refusal this
	// package does not know: keep the rows and try again later.
	return temporary
}

// sqlStateClass returns the first two characters of the Postgres error
// code a runtime_error carries ([{"name": "error", "code": "…"}]), or "".
func sqlStateClass(we *client.WampError) string {
	if len(we.Args) == 0 {
		return ""
	}
	m, _ := we.Args[0].(map[string]any)
	code, _ := m["code"].(string)
	if len(code) != 5 {
		return ""
	}
	return code[:2]
}
