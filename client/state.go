// This file holds the connection states: State, the change of state, and
// the goroutine that reports changes to the state handler in order.

package client

import (
	"context"

	"github.com/flockgo/ironflock/client/internal/engine"
)

// State is the connection state of a Client.
type State int

// The states of the connection supervisor (seed: States and transitions).
const (
	// StateIdle: created, Start not called yet (or a Start that failed).
	StateIdle State = iota
	// StateConnecting: Start is establishing the first session.
	StateConnecting
	// StateConnected: a session is joined and every subscription and
	// registration has been restored.
	StateConnected
	// StateReconnecting: the session was lost; retrying at the fast cadence.
	StateReconnecting
	// StateReconnectingSlow: the realm has been missing for a while; one
	// attempt every two minutes.
	StateReconnectingSlow
	// StateStopped: Stop was called. Final.
	StateStopped
	// StateRefusedRetrying: the router refuses the credential
	// (wamp.error.authentication_failed), as the production router does to
	// valid credentials while its authenticator or database cannot verify
	// them; the client keeps retrying at the reconnect cadence, with the
	// credential read afresh at each attempt, until the refusals have
	// lasted the grace (WithAuthFailureGrace).
	StateRefusedRetrying
	// StateRefused: the refusals lasted the whole grace; the client makes
	// no more attempts, operations fail with ErrCredentialRefused, and
	// Start may be called again.
	StateRefused
)

// String returns the lower-case name of the state.
func (s State) String() string {
	switch s {
	case StateIdle:
		return "idle"
	case StateConnecting:
		return "connecting"
	case StateConnected:
		return "connected"
	case StateReconnecting:
		return "reconnecting"
	case StateReconnectingSlow:
		return "reconnecting-slow"
	case StateStopped:
		return "stopped"
	case StateRefusedRetrying:
		return "refused-retrying"
	case StateRefused:
		return "refused"
	default:
		return "unknown"
	}
}

// setStateLocked changes the state and wakes waiters; c.mu is held. The
// state handler, if any, gets every change in order on a goroutine of its
// own, started with the first change.
func (c *Client) setStateLocked(st State) {
	if c.state == st {
		return
	}
	c.obs.stateChanged(c.state, st)
	c.state = st
	close(c.changed)
	c.changed = make(chan struct{})
	if c.set.onState == nil {
		return
	}
	if c.states == nil {
		c.states = engine.NewQueue(context.Background(), func(_ context.Context, st State) {
			c.safely("state handler", "", func() { c.set.onState(st) })
		})
	}
	c.states.Put(st)
}
