// This file holds WithAttemptHandler: the outcome of every connection
// attempt of the supervisor, reported in order to a handler of the
// caller's.

package client

import (
	"context"

	"github.com/flockgo/ironflock/client/internal/engine"
)

// WithAttemptHandler registers a function called after every connection
// attempt, in order, on a goroutine of its own: with nil when the attempt
// joined a session and restored every subscription and registration, else
// with the attempt's error — a *WampError when the router refused the join
// (wamp.error.no_such_realm, wamp.error.authentication_failed, …), a
// network error when it could not be reached. Attempts ended by Start's
// context or by Stop are not reported. Stop waits for the function to
// return, so it must not call Stop on its own client.
//
// The state handler says where the connection is; the attempt handler says
// why it is not there yet, which a program that must give up on some
// refusals (package crossapp does, for a revoked grant) needs to know.
func WithAttemptHandler(fn func(err error)) Option { return func(s *settings) { s.onAttempt = fn } }

// reportAttempt hands the outcome of an attempt to the attempt handler,
// if any, through a queue started with the first report.
func (c *Client) reportAttempt(err error) {
	if c.set.onAttempt == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return
	}
	if c.attempts == nil {
		c.attempts = engine.NewQueue(context.Background(), func(_ context.Context, err error) {
			c.safely("attempt handler", c.realm, func() { c.set.onAttempt(err) })
		})
	}
	c.attempts.Put(err)
}
