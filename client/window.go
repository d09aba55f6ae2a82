// This file holds the reconnect window of table operations: the wait for
// a session and the retry of calls the data backend does not serve yet.

package client

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
)

// Retry cadence of calls the data backend has not registered yet.
const (
	notServedInitial = 500 * time.Millisecond
	notServedMax     = 5 * time.Second
)

// windowDeadline returns when the reconnect window of an operation started
// now closes; zero when the window is disabled.
func (c *Client) windowDeadline() time.Time {
	if c.set.reconnectWindow <= 0 {
		return time.Time{}
	}
	return time.Now().Add(c.set.reconnectWindow)
}

// waitFor returns how long an operation may wait for a session.
func (c *Client) waitFor(deadline time.Time) time.Duration {
	if deadline.IsZero() {
		return c.set.sessionWait
	}
	return max(time.Until(deadline), time.Millisecond)
}

// resend reports whether an operation that failed with err goes out again
// on the next session: the connection ended before it left the client
// (ErrNotSent) and the reconnect window is still open.
func (c *Client) resend(err error, deadline time.Time) bool {
	return !deadline.IsZero() && errors.Is(err, ErrNotSent) && time.Now().Before(deadline)
}

// tablePublish publishes within the reconnect window: it waits for a
// session up to the window and sends again a publication the connection
// lost before it left the client. One that may have reached the router
// (ErrOutcomeUnknown) is returned, never sent twice.
func (c *Client) tablePublish(ctx context.Context, op, topic string, args []any, kwargs map[string]any) error {
	deadline := c.windowDeadline()
	for {
		err := c.publish(ctx, op, topic, args, kwargs, c.waitFor(deadline))
		if !c.resend(err, deadline) {
			return err
		}
	}
}

// tableCall calls a data-backend procedure within the reconnect window: it
// waits for a session up to the window, sends again a call the connection
// lost before it left the client, and retries while the procedure is not
// served yet (the backend is still starting after a restart), at 0.5 s
// doubling to 5 s, as long as the next attempt starts inside the window.
// Every other outcome, a call whose outcome is unknown included, is
// returned as it is. A procedure still missing while the backend answers
// on its error-logs table belongs to an undeclared table (ErrUnknownTable).
func (c *Client) tableCall(ctx context.Context, op, table, uri string, args []any, kwargs map[string]any, cs callSettings) (*Result, error) {
	deadline := c.windowDeadline()
	delay := notServedInitial
	refusals := 0
	cs.table = table
	for {
		res, err := c.call(ctx, op, uri, args, kwargs, cs, c.waitFor(deadline))
		if c.resend(err, deadline) {
			continue
		}
		if err == nil || !notServedYet(err) {
			return res, err
		}
		if refusals++; refusals > 1 && table != wire.ErrorLogsTable && c.backendRunning(ctx, deadline) {
			var we *WampError
			errors.As(err, &we)
			return nil, &undeclaredError{table: table, proc: uri, wamp: we}
		}
		if deadline.IsZero() || time.Now().Add(delay).After(deadline) {
			return nil, err
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-c.stopCh:
			t.Stop()
			return nil, ErrStopped
		}
		delay = min(2*delay, notServedMax)
	}
}

// notServedYet reports a refusal meaning the procedure never ran: nobody
// registered it, or a callee received it before it saw its own REGISTERED.
func notServedYet(err error) bool {
	var we *WampError
	if !errors.As(err, &we) {
		return false
	}
	switch we.URI {
	case wire.ErrNoSuchProcedure:
		return true
	case wire.ErrInvalidArgument:
		if len(we.Args) > 0 {
			s, _ := we.Args[0].(string)
			return strings.HasPrefix(s, wire.NoHandlerPrefix)
		}
	}
	return false
}
