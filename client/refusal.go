// This file holds the grace of refused credentials: how long the
// supervisor keeps retrying while the router answers
// wamp.error.authentication_failed before the refusal is final.

package client

import (
	"fmt"
	"time"
)

// WithAuthFailureGrace sets how long the router may refuse the credential
// (wamp.error.authentication_failed) on every attempt before the refusal
// is final (default 5 minutes). Until then the client keeps retrying at
// the reconnect cadence, reading the credential afresh at each attempt,
// and reports StateRefusedRetrying; once the refusals have lasted d, it
// makes no more attempts, reports StateRefused, and Start, Run and the
// operations waiting for a session fail with ErrCredentialRefused. Any
// other outcome of an attempt (a join, a network error, a missing realm)
// ends the streak.
//
// The grace applies to every streak, the first join's included: the
// production router refuses valid credentials while its authenticator or
// its database cannot verify them (a router restarting warms up its
// authenticator, a database fails over), which can as well be when a
// device boots. The default outlasts a database failover (typically one
// to two minutes) plus the router's warm-up, and a rotated credential
// reaching the environment mirror; a wrong secret still ends within
// minutes rather than never. Start's context bounds the first join as
// before, so a caller that wants a wrong secret to fail sooner gives Start
// a shorter context (or sets a shorter grace). A grace of 0 makes the
// first refusal final.
func WithAuthFailureGrace(d time.Duration) Option {
	return func(s *settings) {
		if d < 0 {
			s.fail("auth failure grace must not be negative, got %s", durationText(d))
			return
		}
		s.authFailureGrace = d
	}
}

// refusalStreak tracks consecutive refusals of the credential.
type refusalStreak struct{ since time.Time }

// refused records a refused attempt at now and reports whether the
// refusals have now lasted the grace.
func (r *refusalStreak) refused(now time.Time, grace time.Duration) bool {
	if r.since.IsZero() {
		r.since = now
	}
	return now.Sub(r.since) >= grace
}

func (r *refusalStreak) reset() { r.since = time.Time{} }

// giveUp makes a refusal final: the supervisor ends, the state is
// StateRefused, and Start, Run and waiting operations learn err.
func (c *Client) giveUp(err error) {
	final := fmt.Errorf("%w for %s by the router, no more attempts: %w",
		ErrCredentialRefused, durationText(c.set.authFailureGrace), err)
	c.log.Error("ironflock: the router kept refusing the credential; giving up", "realm", c.realm,
		"grace", c.set.authFailureGrace, "error", err)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastErr = final
	if c.stopped {
		return
	}
	c.started = false
	c.setStateLocked(StateRefused)
	if c.final != nil { // closed once per Start: each makes its own
		close(c.final)
	}
}

// refusedErrLocked returns the final refusal while the state is StateRefused;
// c.mu is held.
func (c *Client) refusedErrLocked() error {
	if c.state == StateRefused {
		return c.lastErr
	}
	return nil
}
