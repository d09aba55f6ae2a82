// This file holds what packages built on the client (secrets, crossapp,
// …) need to call the app's data backend the way the table operations
// do: Query.Payload and SeriesQuery.Payload (a query's wire form),
// Client.CallData (a call within the reconnect window, retried while not
// served yet) and ErrNotServed.

package client

import (
	"context"
	"errors"
	"fmt"
)

// ErrNotServed reports a procedure of the data backend that is not
// registered while the data backend runs (it answers on its error-logs
// table), so waiting does not help: the data template lacks what the
// procedure serves, or the backend is older than the procedure. CallData's
// error also carries the router's *WampError
// (wamp.error.no_such_procedure).
var ErrNotServed = errors.New("procedure not served by the data backend")

// notServedError names the procedure and keeps the WAMP refusal.
type notServedError struct {
	proc string
	wamp *WampError
}

func (e *notServedError) Error() string {
	return fmt.Sprintf("the data backend runs but does not register %s (%s)", e.proc, e.wamp.URI)
}

func (e *notServedError) Unwrap() []error { return []error{ErrNotServed, e.wamp} }

// Payload returns the wire form of q: the object the data backend's reads
// (history.transformed.<t>, secret.reveal.<t>, secret.verify.<t>) take as
// their only argument, as GetHistory sends it. limit (Limit, or the
// default 10) and offset are always there; timeRange, filterAnd, columns
// and columnPaths only when set, never null. A nil q is
// {"limit": 10, "offset": 0}. A limit outside 1…10000, a negative offset,
// a malformed filter or time range fails with ErrInvalidArgument; narrower
// limits of a procedure are left to the data backend. An operator the data
// backend does not know is sent as given; unlike GetHistory, Payload logs
// no warning for it. The map is new on every call, so the caller may add
// keys to it (secret.verify.<t> takes column and candidate in the same
// object).
func (q *Query) Payload() (map[string]any, error) {
	return q.wire("Query.Payload", "", MaxHistoryLimit, func(string) {})
}

// Payload returns the wire form of q, the only argument of
// history.transformed.series.<t>, as GetSeriesHistory sends it: metrics
// (those of Metrics, then one per column of Columns with Method), limit and
// timeRange always; bucketMs, groupBy and filterAnd only when set. A query
// GetSeriesHistory would refuse fails the same way, with
// ErrInvalidArgument. The map is new on every call.
func (q SeriesQuery) Payload() (map[string]any, error) {
	return q.wire("SeriesQuery.Payload", func(string) {})
}

// CallData calls a procedure of the app's data backend as the table
// operations call theirs: args [payload] (no args when payload is nil), no
// keyword arguments and no device metadata. It waits for a session up to
// the reconnect window (WithReconnectWindow, 60 s by default; operations
// issued before Start wait for it) and retries while the procedure is not
// served yet, that is refused with wamp.error.no_such_procedure or
// reaching a callee before its registration, at 0.5 s doubling to 5 s as
// long as the next attempt starts inside the window. When the procedure
// stays unregistered while the data backend answers, it fails at once
// with ErrNotServed. Every other outcome, a connection lost mid-call
// included, is returned as it is: refusals keep their URI in a
// *WampError.
//
// The payload is encoded like every argument (docs/wire.md §9); nothing
// is sent when ctx has already ended. Timeout bounds each attempt;
// Progress asks for progressive results and receives them. Errors are *OpError naming "CallData" and the procedure, or
// ErrInvalidArgument for a procedure or payload refused before sending.
func (c *Client) CallData(ctx context.Context, procedure string, payload map[string]any, opts ...CallOption) (*Result, error) {
	const op = "CallData"
	if err := checkTopic(op, procedure, false); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, opErr(op, procedure, err) // nothing is sent
	}
	var args []any
	if payload != nil {
		enc, err := encodeValue(payload, "payload")
		if err != nil {
			return nil, invalidArg(op, procedure, "%v", err)
		}
		args = []any{enc}
	}
	var cs callSettings
	for _, o := range opts {
		cs = o.applyCall(cs)
	}
	if cs.timeout < 0 {
		return nil, invalidArg(op, procedure, "negative timeout %v", cs.timeout)
	}
	res, err := c.tableCall(ctx, op, "", procedure, args, nil, cs)
	var ue *undeclaredError
	if errors.As(err, &ue) {
		err = &notServedError{proc: ue.proc, wamp: ue.wamp}
	}
	return res, opErr(op, procedure, err)
}
