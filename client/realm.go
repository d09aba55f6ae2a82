// This file holds ForRealm: a second client of the same app on another
// realm (a provider app's realm, for package crossapp), stopped with the
// first.

package client

import (
	"context"
	"errors"
	"fmt"
)

// ForRealm returns a new client that acts as c on realm: the same identity
// and device metadata, the same router URL, the same credential (the one
// of WithAuth or WithCredentials, else the per-app credential read again
// from the environment mirror on every attempt, else the legacy one) and
// the same options — timings, keepalive, reconnect window, serializer,
// logger — with opts applied on top. The state and attempt handlers are
// not inherited; give the new client its own with opts. Options that set
// the identity, the environment or the URL (WithEnv, WithSerialNumber,
// WithAppKey, WithURL, …) have no effect, and realm wins over WithRealm.
//
// The new client is not started: Start it like any client. It is
// supervised like c (reconnects, the realm cadence through
// wamp.error.no_such_realm, keepalive, restore of its subscriptions) and
// is entirely separate from it: its own session, subscriptions and state.
// It stops when c stops, before c's session ends; Stop it to end it
// sooner. ForRealm fails with ErrStopped once c is stopped, and with
// ErrInvalidArgument for a blank realm or an invalid option.
func (c *Client) ForRealm(realm string, opts ...Option) (*Client, error) {
	const op = "ForRealm"
	s := *c.set
	s.onState, s.onAttempt = nil, nil
	for _, o := range opts {
		o(&s)
	}
	WithRealm(realm)(&s)
	if len(s.errs) > 0 {
		return nil, opErr(op, realm, fmt.Errorf("%w: %w", ErrInvalidArgument, errors.Join(s.errs...)))
	}
	logger := c.log
	if s.logger != nil {
		logger = s.logger
	}
	child := newClient(s, logger, c.env, c.id, c.url)
	remove := c.OnStop(func(ctx context.Context) { _ = child.Stop(ctx) })
	child.OnStop(func(context.Context) { remove() })
	if c.isStopped() {
		_ = child.Stop(context.Background()) // never started: nothing to wait for
		return nil, opErr(op, realm, ErrStopped)
	}
	return child, nil
}
