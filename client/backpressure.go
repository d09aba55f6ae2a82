// This file holds the bounds that keep a slow handler from growing memory
// without bound: each subscription's event queue and each registration's
// invocations in flight, their options, and the warning logged when a
// bound is hit.

package client

import (
	"fmt"
	"sync/atomic"
	"time"
)

// Defaults of the bounds on slow handlers.
const (
	// DefaultEventQueueLimit is how many events a subscription holds for a
	// handler that has not taken them yet. A full queue drops its oldest
	// event for each new one: the reader never waits for a handler, so
	// replies, other subscriptions and keepalive keep flowing, and a
	// handler that catches up sees the newest events.
	DefaultEventQueueLimit = 1024
	// DefaultInvocationLimit is how many invocations of one registration
	// may run at once. One more is answered at once with
	// wamp.error.unavailable: the caller learns that the device is busy
	// instead of waiting behind an ever-growing backlog.
	DefaultInvocationLimit = 256
)

// overloadEvery is the least interval between two overload warnings of one
// subscription or registration.
const overloadEvery = 10 * time.Second

// WithEventQueueLimit sets how many events each subscription holds for its
// handler (default DefaultEventQueueLimit); QueueLimit overrides it for
// one subscription. When a handler cannot keep up, the oldest waiting
// event is dropped for each new one and counted (Subscription.Dropped).
func WithEventQueueLimit(n int) Option {
	return func(s *settings) { s.limit(&s.eventQueueLimit, "event queue limit", n) }
}

// WithInvocationLimit sets how many invocations of each registration may
// run at once (default DefaultInvocationLimit); InvocationLimit overrides
// it for one registration. An invocation beyond it is answered with
// wamp.error.unavailable and counted (Registration.Refused).
func WithInvocationLimit(n int) Option {
	return func(s *settings) { s.limit(&s.invocationLimit, "invocation limit", n) }
}

// QueueLimit sets how many events this subscription holds for its handler
// (default: WithEventQueueLimit). When it is full the oldest waiting event
// is dropped for each new one and counted (Subscription.Dropped).
func QueueLimit(n int) SubscribeOption {
	return func(s *subscribeSettings) { s.limit, s.err = checkedLimit("queue limit", n, s.limit) }
}

// InvocationLimit sets how many invocations of this registration may run
// at once (default: WithInvocationLimit). An invocation beyond it is
// answered with wamp.error.unavailable and counted (Registration.Refused).
func InvocationLimit(n int) RegisterOption {
	return func(s *registerSettings) { s.limit, s.err = checkedLimit("invocation limit", n, s.limit) }
}

// limit sets *dst to n, or records an error when n is below 1.
func (s *settings) limit(dst *int, what string, n int) {
	v, err := checkedLimit(what, n, *dst)
	if err != nil {
		s.errs = append(s.errs, err)
	}
	*dst = v
}

// checkedLimit returns n when it is at least 1, else old and an error
// naming what was given.
func checkedLimit(what string, n, old int) (int, error) {
	if n < 1 {
		return old, fmt.Errorf("%s must be at least 1, got %d", what, n)
	}
	return n, nil
}

// overloadWarning returns a function that logs msg with attrs and the
// count it is given, at the first call and then at most once every
// overloadEvery. It never blocks beyond the logger itself.
func (c *Client) overloadWarning(msg string, attrs ...any) func(key string, n uint64) {
	var last atomic.Int64 // unix nanoseconds of the last warning
	return func(key string, n uint64) {
		now := time.Now().UnixNano()
		prev := last.Load()
		if prev != 0 && now-prev < int64(overloadEvery) {
			return
		}
		if !last.CompareAndSwap(prev, now) {
			return
		}
		c.log.Warn(msg, append(attrs, key, n)...)
	}
}
