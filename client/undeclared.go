// This file holds ErrUnknownTable and how a table missing from the app's
// data template is told apart from a data backend that is still starting.

package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
)

// ErrUnknownTable reports a table the app's data backend does not serve:
// it is not declared in the app's data template. The error also carries the
// router's *WampError (wamp.error.no_such_procedure).
var ErrUnknownTable = errors.New("table not declared in the app's data template")

// undeclaredError names the table and keeps the WAMP refusal.
type undeclaredError struct {
	table string
	proc  string
	wamp  *WampError
}

func (e *undeclaredError) Error() string {
	return fmt.Sprintf("table %q is not declared in the app's data template: the data backend runs but does not register %s (%s)", e.table, e.proc, e.wamp.URI)
}

func (e *undeclaredError) Unwrap() []error { return []error{ErrUnknownTable, e.wamp} }

// backendRunning asks the data backend for one row of its error-logs
// table, which every backend serves. Only the backend's own answers count:
// the router's refusals say nothing about it (no such procedure, or not
// authorized — a consumer's session on a provider's realm may not read
// error-logs).
func (c *Client) backendRunning(ctx context.Context, deadline time.Time) bool {
	probe := []any{map[string]any{"limit": int64(1), "offset": int64(0)}}
	_, err := c.call(ctx, "probe", wire.HistoryProc(wire.ErrorLogsTable), probe, nil, callSettings{}, c.waitFor(deadline))
	if err == nil {
		return true
	}
	var we *WampError
	if !errors.As(err, &we) {
		return false
	}
	switch we.URI {
	case wire.ErrNoSuchProcedure, wire.ErrNotAuthorized, wire.ErrAuthorizationFailed:
		return false
	}
	return true
}
