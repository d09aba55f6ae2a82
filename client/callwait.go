// This file holds WaitForRegistration, the call option that retries a
// call while its procedure is not registered yet, and the retry loop of
// Call and CallDeviceFunction.

package client

import (
	"context"
	"fmt"
	"time"
)

// Cadence of the retries of WaitForRegistration: 50 ms doubling to 1 s,
// ±10 %.
const (
	waitRegInitial = 50 * time.Millisecond
	waitRegMax     = time.Second
)

// WaitForRegistration retries a call refused because its procedure is not
// registered (wamp.error.no_such_procedure, or a callee that received the
// call before it saw its own registration) for up to d after the first
// attempt, at 50 ms doubling to 1 s: for a procedure expected to appear
// soon, as a device function while its device reconnects. The last attempt
// starts at d at the latest; its refusal is then returned. The call's ctx
// bounds the whole wait, and Timeout each attempt. Every other outcome is
// returned at once. A negative d fails with ErrInvalidArgument; 0 means
// no retry, the default. CallData ignores it: it retries within the
// reconnect window.
func WaitForRegistration(d time.Duration) CallOption {
	return callOption(func(s *callSettings) { s.waitReg = d })
}

// callWaiting makes a call, retried while its procedure is not registered
// for up to cs.waitReg.
func (c *Client) callWaiting(ctx context.Context, op, uri string, args []any, kwargs map[string]any, cs callSettings) (*Result, error) {
	res, err := c.call(ctx, op, uri, args, kwargs, cs, c.set.sessionWait)
	if cs.waitReg <= 0 || err == nil || !notServedYet(err) {
		return res, err
	}
	deadline := time.Now().Add(cs.waitReg)
	cad := newCadence(waitRegInitial, waitRegMax, 2, 0.1)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return nil, fmt.Errorf("%w (not registered within %s)", err, durationText(cs.waitReg))
		}
		t := time.NewTimer(min(cad.next(), left))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%w while waiting for the procedure to be registered", ctx.Err())
		case <-c.stopCh:
			t.Stop()
			return nil, ErrStopped
		}
		res, err = c.call(ctx, op, uri, args, kwargs, cs, c.set.sessionWait)
		if err == nil || !notServedYet(err) {
			return res, err
		}
	}
}
